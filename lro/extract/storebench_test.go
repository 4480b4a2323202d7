package extract_test

import (
	"context"
	"github.com/zircote/lro-go/lro"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	_ "gocloud.dev/blob/s3blob"

	"github.com/zircote/lro-go/internal/testing/s3test"
	"github.com/zircote/lro-go/internal/testing/sidebyside"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/store"
	_ "github.com/zircote/lro-go/lro/store/blobstore"
)

// BenchmarkBucketVsFolder runs the calls of BenchmarkRecipeVsJQ on the
// 10,000-record file kept in a bucket in memory (memblob), by handle,
// side by side with the same file in a folder, by file_path: what the GET
// and the pipe to the worker cost over reading a file (a bucket over the
// network adds its own transfer). Answers stay inline (no offload in
// turn), so that both arms only read. Report the ratio bucket/folder.
func BenchmarkBucketVsFolder(b *testing.B) {
	st := newStore(b, newBucket(b))
	storeVsFolder(b, "bucket", st, put(b, st, "full", benchMemories(10_000)))
}

// BenchmarkS3VsFolder runs the calls of BenchmarkRecipeVsJQ on the
// 10,000-record file kept in a bucket of a real S3-compatible server
// (versitygw, see internal/testing/s3test), written through one Store and read by
// handle through another, as a replica that did not write it reads it,
// side by side with the same file in a local folder. Report the ratio
// s3/folder.
func BenchmarkS3VsFolder(b *testing.B) {
	url := s3test.Bucket(b)
	writer, reader := openStore(b, url), openStore(b, url)
	storeVsFolder(b, "s3", reader, put(b, writer, "full", benchMemories(10_000)))
}

// storeVsFolder runs the calls of BenchmarkRecipeVsJQ on the result of
// handle in st, by handle, as the arm named arm, side by side with the same
// 10,000 records in a file of a folder, by file_path (arm "folder").
func storeVsFolder(b *testing.B, arm string, st *store.Store, handle string) {
	dir := b.TempDir()
	path, _ := benchFile(b, dir)
	folder := session(b, &extract.Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 1 << 30}})
	stored := session(b, &extract.Options{LRO: &lro.Options{Store: st, ThresholdTokens: 1 << 30}})
	for _, tc := range benchRecipes {
		b.Run(tc.name, func(b *testing.B) {
			byPath := tc.args(path)
			byHandle := tc.args(handle)
			delete(byHandle, "file_path")
			byHandle["handle"] = handle
			run := func(cs *mcp.ClientSession, args map[string]any) func() {
				return func() {
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: extract.ToolExtract, Arguments: args})
					if err != nil || res.IsError {
						b.Fatalf("lro_extract failed: %v %v", err, res)
					}
				}
			}
			sidebyside.Run(b, sidebyside.Arm{Name: arm, Run: run(stored, byHandle)}, sidebyside.Arm{Name: "folder", Run: run(folder, byPath)})
		})
	}
}

// openStore opens the Store of a bucket URL, closed at the end of the
// benchmark.
func openStore(b *testing.B, url string) *store.Store {
	b.Helper()
	st, err := store.Open(context.Background(), url, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}
