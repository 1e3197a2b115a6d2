// Package emu is the emulator's core, shared by its synthesis and
// recognition halves: options and fault knobs, request statistics, the route
// wrapper (counting, latency, authentication, the rate limit's token bucket,
// injected faults), the documented error
// bodies, a seeded random source and the registry that lets audio the
// emulator synthesized be transcribed back to the text it spoke.
package emu
