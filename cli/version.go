package cli

import (
	"context"
	"fmt"
	"runtime"

	"github.com/voxform/voxform/state"
)

func init() {
	register(&command{name: "version", synopsis: "print the voxform version", run: runVersion})
}

const versionUsage = `
Usage: voxform version

Prints the voxform version and the Go runtime it was built with.
`

func runVersion(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet(env, "version", versionUsage)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("version takes no arguments")
	}
	fmt.Fprintf(env.Stdout, "voxform %s (%s %s/%s)\n", state.VoxformVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return nil
}
