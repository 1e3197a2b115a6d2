package emu

import "context"

type dropKey struct{}

func withDrop(ctx context.Context) context.Context { return context.WithValue(ctx, dropKey{}, true) }

// ShouldDrop reports whether the request was chosen to have its connection
// cut mid-response. HTTP bodies are cut by the route wrapper; handlers that
// hijack the connection (WebSocket) consult this to cut the stream
// themselves after part of it, and count it with Stats.RouteFault(route,
// "drop").
func ShouldDrop(ctx context.Context) bool {
	v, _ := ctx.Value(dropKey{}).(bool)
	return v
}
