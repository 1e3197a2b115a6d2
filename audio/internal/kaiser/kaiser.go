// Package kaiser holds what the Kaiser window of voxform's two
// windowed-sinc filters, the resampler (package audio) and the true-peak
// oversampler (package audio/loudness), is computed with.
package kaiser

// BesselI0 is the zeroth-order modified Bessel function of the first kind.
func BesselI0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 50; k++ {
		term *= (x / 2) / float64(k)
		sum += term * term
		if term*term < sum*1e-17 {
			break
		}
	}
	return sum
}
