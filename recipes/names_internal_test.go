package recipes

import "testing"

// TestMeasureName checks the words of field names that make a number a
// measure, and the names that merely contain such a word.
func TestMeasureName(t *testing.T) {
	tests := []struct {
		name   string
		want   bool
		reason string
	}{
		{"comments", true, "a plural measure word"},
		{"stargazers_count", true, "a word after an underscore"},
		{"commentCount", true, "a word after a camel-case boundary"},
		{"durationMs", true, "two measure words in camel case"},
		{"size_bytes", true, "two measure words"},
		{"x-rate", true, "a word after a dash"},
		{"age", true, "a whole word"},
		{"page", false, "age inside another word"},
		{"message", false, "age inside another word"},
		{"usage", false, "age inside another word"},
		{"number", false, "an identifier's name"},
		{"seq", false, "no measure word"},
		{"1st", false, "digits and letters, no measure word"},
		{"", false, "no name"},
	}
	for _, tt := range tests {
		if got := measureName(tt.name); got != tt.want {
			t.Errorf("measureName(%q) = %v, want %v: %s", tt.name, got, tt.want, tt.reason)
		}
	}
}
