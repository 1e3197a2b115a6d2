package manifest

// LoadOptions are the inputs of a load besides the manifest files.
type LoadOptions struct {
	// Vars are -var NAME=VALUE flags in command-line order; a later one
	// wins over an earlier one.
	Vars []string
	// VarFiles are -var-file paths (YAML or JSON maps of name to value),
	// relative to the manifest directory unless absolute, in order.
	VarFiles []string
	// Environ is the process environment as KEY=VALUE pairs; VOXFORM_VAR_NAME
	// sets variable NAME and VOXFORM_BASE_URL overrides service.base_url.
	Environ []string
	// NoProbe skips reading audio headers of input files (durations,
	// sample rates); the rules that need them are then not checked.
	NoProbe bool
	// Expanded, when set, is called once the manifest is expanded without
	// errors, before it is checked: a plan starts reading its state there,
	// while the check runs.
	Expanded func()
}
