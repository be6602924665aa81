module github.com/agentready/agentready/internal/specschemas/a2agen

go 1.26.8

require (
	github.com/bufbuild/protocompile v0.14.1
	google.golang.org/genproto/googleapis/api v0.0.0-20260414002931-afd174a4e478
	google.golang.org/protobuf v1.36.11
)

require golang.org/x/sync v0.8.0 // indirect
