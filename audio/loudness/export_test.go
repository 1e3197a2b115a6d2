package loudness

// What only this package calls, under the names its tests use.
var (
	NewLoudnessMeter = newLoudnessMeter
	MeasureLoudness  = measureLoudness
	RenderWithin     = renderWithin
)
