package main

import (
	"flag"
	"fmt"
	"log/slog"
	"slices"
	"strings"
)

// envPrefix starts the name of every environment variable a flag is read
// from (docs/operations.md, "Configuration from the environment").
const envPrefix = "AGENTREADY_"

// envName is the environment variable flag name is read from: -trusted-
// proxies is AGENTREADY_TRUSTED_PROXIES.
func envName(name string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// applyEnv sets every flag of fs not given on the command line (fs is
// parsed) from its environment variable in environ (os.Environ's form),
// so the command line wins. A value the flag refuses is an error naming
// the variable and the flag, never the value: it may be a secret (a
// Redis URL's password). unknown are the names of the other AGENTREADY_*
// variables, except those in also (variables a flag names, as
// -report-token-env does), for a debug line: a typo is findable, and
// nothing else reads them.
func applyEnv(fs *flag.FlagSet, environ []string, also ...string) (unknown []string, err error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && strings.HasPrefix(k, envPrefix) {
			env[k] = v
		}
	}
	known := map[string]bool{}
	var errs []string
	fs.VisitAll(func(f *flag.Flag) {
		n := envName(f.Name)
		known[n] = true
		v, ok := env[n]
		if !ok || given[f.Name] {
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Sprintf("%s: not a valid value for -%s", n, f.Name))
		}
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	for k := range env {
		if !known[k] && !slices.Contains(also, k) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	return unknown, nil
}

// logUnknownEnv lists, at debug level, the AGENTREADY_* variables no flag
// reads: their names only.
func logUnknownEnv(l *slog.Logger, unknown []string) {
	if len(unknown) > 0 {
		l.Debug("agentready serve: these AGENTREADY_ environment variables name no flag and are ignored", "variables", unknown)
	}
}
