package commands

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/devagent/dev/config"
	"github.com/devagent/dev/textfmt"
	"github.com/devagent/dev/ui"
)

// profilesCommand is dev profiles: the model profiles of config.json.
func (d *devCmd) profilesCommand() *cli.Command {
	return &cli.Command{
		Name:   "profiles",
		Usage:  "list the model profiles of config.json, the active one marked",
		Action: d.profiles,
		Flags:  []cli.Flag{&cli.StringFlag{Name: "profile", Usage: "mark `NAME` as active (as dev --profile would)"}},
	}
}

// profiles lists the model profiles, the active one marked with a star.
func (d *devCmd) profiles(c *cli.Context) error {
	if err := noArgs(c, "dev profiles", ""); err != nil {
		return err
	}
	dir, err := config.Dir(config.Env(d.env))
	if err != nil {
		return err
	}
	cfg, _, warnings, err := config.Read(dir, config.Env(d.env), config.Flags{Profile: c.String("profile")})
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintln(d.streams.Err, "dev: warning: "+w)
	}
	if len(cfg.Profiles) == 0 {
		fmt.Fprintf(d.streams.Err, "no profiles in %s; add them under \"profiles\" (see Profiles in docs/configuration.md)\n", config.Path(dir))
		return nil
	}
	sets := make(map[string][]string, len(cfg.Profiles))
	for name, p := range cfg.Profiles {
		sets[name] = profileSettings(p)
	}
	return ui.Profiles(d.streams.Out, sets, cfg.Profile, d.streams.OutFit())
}

// profileSettings says what p sets, one phrase per key (never the API
// key's value).
func profileSettings(p config.Profile) []string {
	var parts []string
	add := func(key string, v *string) {
		if v != nil {
			parts = append(parts, key+" "+*v)
		}
	}
	add("model", p.Model)
	add("at", p.APIURL)
	if p.APIKey != nil && *p.APIKey != "" {
		parts = append(parts, "with an API key")
	}
	add("auditModel", p.AuditModel)
	add("compressModel", p.CompressModel)
	if p.MaxContextTokens != nil {
		parts = append(parts, textfmt.Thousands(int64(*p.MaxContextTokens))+"-token window")
	}
	add("thinking", p.Thinking)
	if p.Temperature != nil {
		parts = append(parts, fmt.Sprintf("temperature %v", *p.Temperature))
	}
	if p.MaxTokens != nil {
		parts = append(parts, fmt.Sprintf("maxTokens %d", *p.MaxTokens))
	}
	if len(p.ExtraBody) > 0 {
		parts = append(parts, "extraBody "+strings.Join(slices.Sorted(maps.Keys(p.ExtraBody)), ", "))
	}
	return parts
}
