// Command a2agen generates the JSON Schema of A2A v1.0 from
// specification/a2a.proto with the A2A repository's own tooling,
// scripts/proto_to_json_schema.sh at v1.0.1 (bufbuild's
// protoc-gen-jsonschema with target=json, then a jq bundle), standing in
// for the one piece of it that cannot be installed here, protoc, and adding
// what that tooling leaves out. gen.sh runs the steps; SOURCE.md in the
// parent directory names the versions.
//
//	a2agen protoc -proto a2a.proto -plugin protoc-gen-jsonschema -out DIR
//
// does what `protoc --jsonschema_out=DIR --jsonschema_opt=target=json
// a2a.proto` does: it compiles the proto (github.com/bufbuild/protocompile;
// google/api/*.proto from the descriptors google.golang.org/genproto
// registers, google/protobuf/*.proto from protobuf-go's), sends the plugin
// the CodeGeneratorRequest protoc sends, with the source info its
// descriptions come from, and writes the files of the plugin's answer
// into DIR.
//
//	a2agen required -proto a2a.proto -out DIR
//
// adds to each message's file in DIR the REQUIRED rules of A2A 1.0 section
// 5.7, which the plugin does not read (it reads buf.validate rules, not
// google.api.field_behavior): a field annotated
// [(google.api.field_behavior) = REQUIRED] "MUST be present" (its JSON name
// joins "required"), and "Arrays marked as required MUST contain at least
// one element" (minItems 1).
//
//	a2agen refs -out DIR < bundle.json > a2a.json
//
// points the bundle's references, which name the plugin's per-message
// files ("lf.a2a.v1.AgentInterface.jsonschema.json", whose $id the jq
// step drops), at the definitions the jq step filed those files under, so
// that the bundle validates on its own.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/bufbuild/protocompile"
	"google.golang.org/genproto/googleapis/api/annotations"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: a2agen protoc|required ...")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	protoFile := fs.String("proto", "a2a.proto", "the proto file")
	plugin := fs.String("plugin", "protoc-gen-jsonschema", "the plugin binary")
	out := fs.String("out", "", "output directory")
	_ = fs.Parse(os.Args[2:])
	var err error
	switch os.Args[1] {
	case "protoc", "required":
		var fd protoreflect.FileDescriptor
		if fd, err = compile(*protoFile); err != nil {
			break
		}
		if os.Args[1] == "protoc" {
			err = runPlugin(fd, *plugin, *out)
		} else {
			err = required(fd, *out)
		}
	case "refs":
		err = localRefs(*out)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "a2agen:", err)
		os.Exit(1)
	}
}

// compile parses and links the proto as protoc does, with standard source
// info (the comments the plugin turns into descriptions).
func compile(path string) (protoreflect.FileDescriptor, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(path)
	_ = annotations.E_FieldBehavior // links google/api/*.proto into GlobalFiles
	registry := protocompile.ResolverFunc(func(p string) (protocompile.SearchResult, error) {
		d, err := protoregistry.GlobalFiles.FindFileByPath(p)
		if err != nil {
			return protocompile.SearchResult{}, err
		}
		return protocompile.SearchResult{Desc: d}, nil
	})
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{name: string(src)})},
			registry,
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	files, err := c.Compile(context.Background(), name)
	if err != nil {
		return nil, err
	}
	return files[0], nil
}

// runPlugin sends the plugin the request protoc would: every file in
// dependency order, the one to generate last, with parameter target=json
// (the script's --jsonschema_opt).
func runPlugin(fd protoreflect.FileDescriptor, plugin, out string) error {
	var protos []*descriptorpb.FileDescriptorProto
	seen := map[string]bool{}
	var walk func(f protoreflect.FileDescriptor)
	walk = func(f protoreflect.FileDescriptor) {
		if seen[f.Path()] {
			return
		}
		seen[f.Path()] = true
		imps := f.Imports()
		for i := 0; i < imps.Len(); i++ {
			walk(imps.Get(i).FileDescriptor)
		}
		protos = append(protos, protodesc.ToFileDescriptorProto(f))
	}
	walk(fd)
	// protoc sends source info only for the files to generate.
	for _, p := range protos[:len(protos)-1] {
		p.SourceCodeInfo = nil
	}
	req := &pluginpb.CodeGeneratorRequest{
		FileToGenerate: []string{fd.Path()},
		Parameter:      proto.String("target=json"),
		ProtoFile:      protos,
	}
	in, err := proto.Marshal(req)
	if err != nil {
		return err
	}
	cmd := exec.Command(plugin)
	cmd.Stdin, cmd.Stderr = bytes.NewReader(in), os.Stderr
	b, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s: %w", plugin, err)
	}
	var resp pluginpb.CodeGeneratorResponse
	if err := proto.Unmarshal(b, &resp); err != nil {
		return err
	}
	if resp.Error != nil {
		return fmt.Errorf("%s: %s", plugin, resp.GetError())
	}
	for _, f := range resp.File {
		if err := os.WriteFile(filepath.Join(out, f.GetName()), []byte(f.GetContent()), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// required adds the REQUIRED rules to the plugin's per-message files in
// dir (before the jq bundling, which drops the files' $id naming the
// message).
func required(fd protoreflect.FileDescriptor, dir string) error {
	var messages []protoreflect.MessageDescriptor
	var collect func(ms protoreflect.MessageDescriptors)
	collect = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			if m := ms.Get(i); !m.IsMapEntry() {
				messages = append(messages, m)
				collect(m.Messages())
			}
		}
	}
	collect(fd.Messages())
	for _, m := range messages {
		path := filepath.Join(dir, string(m.FullName())+".jsonschema.json")
		def, err := readJSON(path)
		if err != nil {
			return err // every message has its file
		}
		props, _ := def["properties"].(map[string]any)
		var req []string
		fields := m.Fields()
		for i := 0; i < fields.Len(); i++ {
			f := fields.Get(i)
			if !isRequired(f) {
				continue
			}
			p, ok := props[f.JSONName()].(map[string]any)
			if !ok {
				return fmt.Errorf("%s: no property %s", path, f.JSONName())
			}
			req = append(req, f.JSONName())
			if f.IsList() {
				p["minItems"] = 1
			}
		}
		if len(req) == 0 {
			continue
		}
		def["required"] = req
		if err := writeJSON(path, def); err != nil {
			return err
		}
	}
	return nil
}

// localRefs points the bundle's references, which name the plugin's files
// ("lf.a2a.v1.AgentInterface.jsonschema.json"), at the definitions the jq
// step filed those files under (their titles).
func localRefs(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	titles := map[string]string{}
	for _, e := range entries {
		def, err := readJSON(filepath.Join(dir, e.Name()))
		if err != nil {
			return err
		}
		id, _ := def["$id"].(string)
		title, _ := def["title"].(string)
		if id == "" || title == "" {
			return fmt.Errorf("%s: no $id or title", e.Name())
		}
		titles[id] = title
	}
	var bundle map[string]any
	dec := json.NewDecoder(os.Stdin)
	dec.UseNumber()
	if err := dec.Decode(&bundle); err != nil {
		return err
	}
	var unresolved []string
	refs(bundle, func(ref string) string {
		file, frag, _ := strings.Cut(ref, "#")
		title, ok := titles[file]
		if !ok {
			unresolved = append(unresolved, ref)
			return ref
		}
		return "#/definitions/" + title + frag
	})
	if len(unresolved) > 0 {
		return fmt.Errorf("references to no generated file: %v", unresolved)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(bundle)
}

func readJSON(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return v, dec.Decode(&v)
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// isRequired reports a [(google.api.field_behavior) = REQUIRED] field.
func isRequired(f protoreflect.FieldDescriptor) bool {
	// The compiler's options are dynamic messages: read them back as the
	// generated FieldOptions, whose extension genproto registers.
	b, err := proto.Marshal(f.Options())
	if err != nil {
		panic(err)
	}
	var opts descriptorpb.FieldOptions
	if err := proto.Unmarshal(b, &opts); err != nil {
		panic(err)
	}
	for _, b := range proto.GetExtension(&opts, annotations.E_FieldBehavior).([]annotations.FieldBehavior) {
		if b == annotations.FieldBehavior_REQUIRED {
			return true
		}
	}
	return false
}

// refs rewrites every "$ref" in v.
func refs(v any, f func(string) string) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "$ref" {
				v[k] = f(s)
				continue
			}
			refs(x, f)
		}
	case []any:
		for _, x := range v {
			refs(x, f)
		}
	}
}
