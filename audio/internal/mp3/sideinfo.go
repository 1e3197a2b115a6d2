package mp3

import (
	"errors"
	"fmt"
)

// ErrCorrupt is wrapped by the errors of frames that break the rules of
// the standard.
var ErrCorrupt = errors.New("corrupt MP3 frame")

// Block types of a granule (11172-3 2.4.2.7 block_type).
const (
	blockLong  = 0
	blockStart = 1
	blockShort = 2
	blockStop  = 3
)

// granule is the side information of one channel of one granule.
type granule struct {
	part23Len     int // bits of scale factors and Huffman data
	bigValues     int // pairs in the big-values region
	globalGain    int
	sfCompress    int
	blockType     int
	mixed         bool // short block with the lowest two subbands long
	tableSelect   [3]int
	subblockGain  [3]int
	region1Start  int // first line of regions 1 and 2
	region2Start  int
	preflag       bool
	sfScale       int // scalefac_scale
	count1Table   int
	lsfIntensity  bool // LSF right channel of intensity stereo
	lsfIntenScale int  // intensity_scale of that channel
}

// sideInfo is a frame's side information.
type sideInfo struct {
	mainDataBegin int
	scfsi         [2][4]bool
	gr            [2][2]granule // [granule][channel]
}

// maxBigValues bounds big_values: 288 pairs are 576 lines.
const maxBigValues = 288

// readSideInfo parses the side information of a frame with header h
// from b, which starts right after the header (and CRC).
func readSideInfo(si *sideInfo, h Header, b []byte) error {
	if len(b) < h.SideInfoLen() {
		return fmt.Errorf("%w: %d bytes of side information, want %d", ErrCorrupt, len(b), h.SideInfoLen())
	}
	r := bitReader{buf: b[:h.SideInfoLen()]}
	nch := h.Channels
	lsf := h.Version != 1
	ngr := 2
	if lsf {
		ngr = 1
		si.mainDataBegin = r.read(8)
		r.skip(nch) // private bits
	} else {
		si.mainDataBegin = r.read(9)
		r.skip(map[bool]int{true: 5, false: 3}[nch == 1])
		for ch := range nch {
			for band := range 4 {
				si.scfsi[ch][band] = r.read(1) == 1
			}
		}
	}
	for gr := range ngr {
		for ch := range nch {
			g := &si.gr[gr][ch]
			*g = granule{}
			g.part23Len = r.read(12)
			g.bigValues = r.read(9)
			if g.bigValues > maxBigValues {
				return fmt.Errorf("%w: big_values %d over %d", ErrCorrupt, g.bigValues, maxBigValues)
			}
			g.globalGain = r.read(8)
			if lsf {
				g.sfCompress = r.read(9)
			} else {
				g.sfCompress = r.read(4)
			}
			region0, region1 := 0, 0
			if r.read(1) == 1 { // window switching
				g.blockType = r.read(2)
				if g.blockType == blockLong {
					return fmt.Errorf("%w: window switching with block type 0", ErrCorrupt)
				}
				g.mixed = r.read(1) == 1
				g.tableSelect[0], g.tableSelect[1] = r.read(5), r.read(5)
				for w := range 3 {
					g.subblockGain[w] = r.read(3)
				}
				g.region1Start, g.region2Start = switchedRegion1(h, g), 576
			} else {
				for i := range 3 {
					g.tableSelect[i] = r.read(5)
				}
				region0, region1 = r.read(4), r.read(3)
				long := &bands[h.rateIndex].long
				g.region1Start = long[min(region0+1, 22)]
				g.region2Start = long[min(region0+region1+2, 22)]
			}
			if !lsf {
				g.preflag = r.read(1) == 1
			}
			g.sfScale = r.read(1)
			g.count1Table = r.read(1)
		}
	}
	return nil
}

// switchedRegion1 is where region 1 starts in a window-switched granule
// (the standard: region0_count 7 or 8 bands; as ffmpeg counts them): 36
// lines for short blocks (72 at 8 kHz), otherwise the start of long band
// 8.
func switchedRegion1(h Header, g *granule) int {
	if g.blockType == blockShort {
		return 9 * bands[h.rateIndex].short[1]
	}
	return bands[h.rateIndex].long[8]
}
