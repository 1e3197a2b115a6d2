package state

import (
	"fmt"
	"strings"
	"testing"
)

// TestTrailingDataRefused: a state file with anything but white space
// after its JSON object (a tool appended to it, a botched merge) is
// refused, not read as if the rest were not there, by the serial and the
// parallel decoder alike.
func TestTrailingDataRefused(t *testing.T) {
	for _, n := range []int{1, parallelDecodeMin + 10} {
		f := New()
		for i := range n {
			f.Resources[fmt.Sprintf(`synthesis.p["%05d"]`, i)] = sampleResource(fmt.Sprintf("text %d", i))
		}
		data, err := MarshalSorted(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decodeBytes(append(data, "\n\t \n"...)); err != nil {
			t.Fatalf("%d resources, white space after: %v", n, err)
		}
		_, err = decodeBytes(append(data, "### voxform verify\n"...))
		if err == nil || !strings.Contains(err.Error(), "data after the state's JSON object") {
			t.Errorf("%d resources, text after: %v", n, err)
		}
	}
}
