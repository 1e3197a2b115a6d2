// Command voxform is a declarative build tool for speech assets: it plans and
// applies voices, voice-clone embeddings, synthesized audio and transcripts
// declared in YAML manifests against a speech service.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/voxform/voxform/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := cli.Run(ctx, cli.StdEnv(), os.Args[1:])
	stop()
	os.Exit(code)
}
