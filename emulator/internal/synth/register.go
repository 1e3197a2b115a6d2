package synth

import "github.com/voxform/voxform/emulator/internal/emu"

// Register adds the synthesis endpoints to m.
func Register(m *emu.Mux, env *emu.Env) {
}
