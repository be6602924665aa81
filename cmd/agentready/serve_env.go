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
// so the command line wins. An empty variable counts as unset, as
// container tools pass one (Compose's ${X} of an unset X). A value the
// flag refuses is an error naming the variable and the flag, never the
// value: it may be a secret (a Redis URL's password).
//
// namers are the flags whose value names a variable holding secrets
// (-tokens-env, -report-token-env): they are set first, and the variables
// they name are never read as a flag's, so -tokens-env AGENTREADY_TOKENS
// does not also give -tokens its tokens as a file name. unknown are the
// names of the other AGENTREADY_* variables, for a debug line: a typo is
// findable, and nothing else reads them.
func applyEnv(fs *flag.FlagSet, environ []string, namers ...string) (unknown []string, err error) {
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
	set := func(f *flag.Flag) {
		n := envName(f.Name)
		known[n] = true
		if v := env[n]; v != "" && !given[f.Name] {
			if err := fs.Set(f.Name, v); err != nil {
				errs = append(errs, fmt.Sprintf("%s: not a valid value for -%s", n, f.Name))
			}
		}
	}
	named := map[string]bool{}
	for _, name := range namers {
		if f := fs.Lookup(name); f != nil {
			set(f)
			named[f.Value.String()] = true
		}
	}
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(namers, f.Name) && !named[envName(f.Name)] {
			set(f)
		}
	})
	if len(errs) > 0 {
		return nil, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	for k := range env {
		if !known[k] && !named[k] {
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
