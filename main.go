// Command voxform is a declarative build tool for speech assets: it plans and
// applies voices, voice-clone embeddings, synthesized audio and transcripts
// declared in YAML manifests against a speech service.
package main

import (
	"context"
	"os"

	"github.com/voxform/voxform/cli"
)

func main() {
	// The first Ctrl-C cancels ctx (apply then starts nothing new); the
	// count goes on from here, so a second one always cancels calls in flight.
	ctx, stop := cli.NotifyInterrupts(context.Background())
	code := cli.Run(ctx, cli.StdEnv(), os.Args[1:])
	stop()
	os.Exit(code)
}
