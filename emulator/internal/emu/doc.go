// Package emu is the emulator's core, shared by its synthesis and
// recognition halves: options and fault knobs, request statistics, the route
// wrapper (counting, latency, authentication, the rate limit's token bucket,
// injected faults), the documented error
// bodies, a seeded random source, the registry that lets audio the
// emulator synthesized be transcribed back to the text it spoke, the draw
// of speech faults and recognition noise with their list, and the
// vocabulary of placeholder, replaced and misheard words.
package emu
