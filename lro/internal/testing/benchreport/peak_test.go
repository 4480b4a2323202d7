package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestSmallRecords(t *testing.T) {
	var got []struct {
		ID int    `json:"id"`
		K  string `json:"k"`
	}
	if err := json.Unmarshal(smallRecords(1001), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1001 || got[7].ID != 7 || got[7].K != "key-7" || got[1000].K != "key-0" {
		t.Errorf("smallRecords(1001) = %d records, [7] = %+v, [1000] = %+v", len(got), got[7], got[1000])
	}
}

// TestPeaks runs the offload and extraction measurements on a small input in
// this process (the report runs them on 1,000,000 records in child
// processes), and checks the extraction's answer against the jq binary's.
func TestPeaks(t *testing.T) {
	if _, err := os.Stat("/proc/self/clear_refs"); err != nil {
		t.Skip("no /proc/self/clear_refs:", err)
	}
	dir := t.TempDir()
	off, err := childOffload(dir, 20_000)
	if err != nil {
		t.Fatal(err)
	}
	if off.InputBytes == 0 || off.FileBytes <= off.InputBytes/2 || off.PeakBytes == 0 || off.ProcessPeak < off.PeakBytes {
		t.Errorf("childOffload() = %+v", off)
	}
	if !strings.HasPrefix(off.File, dir) {
		t.Errorf("file %s is not in %s", off.File, dir)
	}
	ex, err := childExtract(dir, off.File)
	if err != nil {
		t.Fatal(err)
	}
	if lines := strings.Count(ex.Output, "\n") + 1; lines != 20 || ex.PeakBytes == 0 || ex.InputBytes != off.FileBytes {
		t.Errorf("childExtract() = %d lines, %+v; want the 20 ids of key-7", lines, ex)
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("no jq")
	}
	out, err := exec.Command(jq, "-c", peakFilter, off.File).Output()
	if err != nil {
		t.Fatal(err)
	}
	if jqOut := strings.TrimSpace(string(out)); jqOut != ex.Output {
		t.Errorf("jq printed %q, lro_extract %q: want the same ids", jqOut, ex.Output)
	}
}

func TestChildMainErrors(t *testing.T) {
	tests := []struct {
		reason string
		args   []string
		want   string
	}{
		{"no mode", nil, "unknown peak child mode"},
		{"unknown mode", []string{"fly"}, `unknown peak child mode: "fly"`},
		{"offload without its folder", []string{"offload"}, "usage"},
		{"extract without its file", []string{"extract", "/tmp"}, "usage"},
	}
	for _, tt := range tests {
		err := childMain(tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("childMain(%q) = %v, want an error containing %q: %s", tt.args, err, tt.want, tt.reason)
		}
	}
}
