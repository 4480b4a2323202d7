package offload

// DefaultThreshold is the specification's DEFAULT_OFFLOAD_THRESHOLD_TOKENS:
// the token estimate above which a result is offloaded. It is the one
// definition behind the default of lro.Options.ThresholdTokens and the default threshold of
// the extraction tools.
const DefaultThreshold = 1600

// SampleSize is how many leading records of an offloaded file its recipes
// are made from: the recipes of a file are recipes.Select over the header's
// detail level and the file's first SampleSize record lines as written. The
// descriptor's recipes are made so, and lro_extract rebuilds them from the
// file the same way, so that recipe N means the same filter with the same
// default parameters in both. A value seen in them is in the file, which is
// all a default parameter needs.
const SampleSize = 16
