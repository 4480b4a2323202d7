package disk

import "testing"

func TestBase(t *testing.T) {
	const name = "atlatl-recall-01M7Z4V5MVAEP07QR38R3NRT04.jsonl"
	tests := []struct {
		temp   string
		base   string
		ok     bool
		reason string
	}{
		{"." + name + ".tmp", name, true, "the temporary name of a file"},
		{name, "", false, "a committed file"},
		{"." + name, "", false, "missing .tmp"},
		{name + ".tmp", "", false, "missing leading dot"},
	}
	for _, tc := range tests {
		base, ok := TempBase(tc.temp)
		if base != tc.base || ok != tc.ok {
			t.Errorf("TempBase(%q) = %q, %v; want %q, %v: %s", tc.temp, base, ok, tc.base, tc.ok, tc.reason)
		}
	}
	if base, ok := TempBase(TempName(name)); base != name || !ok {
		t.Errorf("TempBase(TempName(%q)) = %q, %v", name, base, ok)
	}
}
