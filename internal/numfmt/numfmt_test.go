package numfmt

import "testing"

func TestThousands(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 7: "7", 999: "999", 1000: "1,000", 65536: "65,536",
		1234567: "1,234,567", -4096: "-4,096", -100: "-100", -1000000: "-1,000,000"} {
		if got := Thousands(in); got != want {
			t.Errorf("Thousands(%d) = %s, want %s", in, got, want)
		}
		if got := Thousands(int(in)); got != want {
			t.Errorf("Thousands(int %d) = %s, want %s", in, got, want)
		}
	}
}
