package recog

import "github.com/voxform/voxform/emulator/internal/emu"

// Register adds the recognition endpoints to m and returns a function that
// stops background work.
func Register(m *emu.Mux, env *emu.Env) (stop func()) {
	return func() {}
}
