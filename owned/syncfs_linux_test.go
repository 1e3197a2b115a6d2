package owned

import "testing"

// The kernel release parse behind SyncsFS.
func TestKernelAtLeast(t *testing.T) {
	for _, c := range []struct {
		release string
		want    bool
	}{
		{"5.17.0", true}, {"5.17-rc1", true}, {"6.1.0-18-amd64", true}, {"6.18.44-fc-v595", true},
		{"5.16.20", false}, {"5.10.0-28-amd64", false}, {"4.19.0-26-amd64", false}, {"5", false}, {"", false}, {"x.y", false}, {"4.4.0-19041-Microsoft", false},
	} {
		if got := kernelAtLeast(c.release, 5, 17); got != c.want {
			t.Errorf("kernelAtLeast(%q, 5, 17) = %v, want %v", c.release, got, c.want)
		}
	}
}
