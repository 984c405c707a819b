package procgroup

// Alive lets the tests, which import bgproctest (and so this package from
// outside), ask what Stop asks.
var Alive = alive
