package transcript_test

import "fmt"

func fmtSscanf(s string, h, m, sec, ms *int) (int, error) {
	return fmt.Sscanf(s, "%d:%d:%d,%d", h, m, sec, ms)
}
