// Package config is the declaration a site writes once, as plain data whose
// zero values are the defaults. Validate reports every problem at once, each
// with its field path.
package config
