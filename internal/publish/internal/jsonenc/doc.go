// Package jsonenc is the JSON encoding shared by the publish renderers of
// JSON documents (agentsjson, awp, agenturi): one indentation and escaping
// policy, so that every document reads alike, and an object type that keeps
// its members in declaration order where a map would sort them.
package jsonenc
