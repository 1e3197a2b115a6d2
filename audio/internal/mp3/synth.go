package mp3

import "math"

// synthD is the synthesis window D[0] to D[511] (11172-3 Table B.3): the
// base values of synthWindow, D[512-i] = D[i] in size, with the sign of
// every other group of 64 turned.
var synthD [512]float32

// dct32 holds cos(pi m (2k+1) / 64), the DCT-II that the matrixing of the
// synthesis filterbank reduces to.
var dct32 [32][32]float32

func init() {
	for i := range 512 {
		j := i
		if i > 256 {
			j = 512 - i
		}
		v := float32(synthWindow[j]) / (1 << 16)
		if (i/64)%2 == 1 {
			v = -v
		}
		synthD[i] = v
	}
	for m := range 32 {
		for k := range 32 {
			dct32[m][k] = float32(math.Cos(math.Pi * float64(m) * float64(2*k+1) / 64))
		}
	}
}

// synthesis is the polyphase synthesis filterbank of one channel
// (11172-3 Annex A, Figure A.2): the vector V of the last 16 steps.
type synthesis struct {
	// v holds V as a ring of 1024 values, written twice (at i and
	// i+1024) so that a step reads 1024 values from off on unbroken.
	v   [2048]float32
	off int
}

// step turns 32 subband samples s into 32 PCM samples out.
func (f *synthesis) step(s *[32]float32, out []float32) {
	// Matrixing: V[i] = sum_k cos((16+i)(2k+1)pi/64) s[k], from the
	// DCT-II C of s by the symmetries of the cosine.
	var c [33]float32
	for m := range 32 {
		row := &dct32[m]
		var sum float32
		for k, x := range s {
			sum += x * row[k]
		}
		c[m] = sum
	}
	f.off = (f.off - 64) & 1023
	v := f.v[f.off : f.off+64]
	for i := range 17 {
		v[i] = c[16+i]
	}
	for i := 17; i < 49; i++ {
		v[i] = -c[48-i]
	}
	for i := 49; i < 64; i++ {
		v[i] = -c[i-48]
	}
	if f.off < 1024 {
		copy(f.v[f.off+1024:f.off+1088], v)
	}
	// Windowing and summing: out[j] = sum over i of
	// D[64i+j] V[128i+j] + D[64i+32+j] V[128i+96+j].
	var acc [32]float32
	for i := range 8 {
		d0, d1 := synthD[64*i:64*i+32], synthD[64*i+32:64*i+64]
		v0 := f.v[f.off+128*i : f.off+128*i+32]
		v1 := f.v[f.off+128*i+96 : f.off+128*i+128]
		for j := range 32 {
			acc[j] += d0[j]*v0[j] + d1[j]*v1[j]
		}
	}
	copy(out, acc[:])
}
