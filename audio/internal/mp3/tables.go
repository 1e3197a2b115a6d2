package mp3

// bandTable holds the scale factor band boundaries of one sample rate
// (ISO/IEC 11172-3 Table B.8, 13818-3 Table B.2, and the MPEG 2.5
// extension): long[i] is the first line of long band i (long[22] = 576),
// short[i] the first line of short band i within one window (short[13] =
// 192).
type bandTable struct {
	long  [23]int
	short [14]int
}

// bands is indexed by Header.rateIndex. 11.025 and 12 kHz share the
// 16 kHz table; 8 kHz has its own.
var bands = [9]bandTable{
	{ // 44.1 kHz
		long:  [23]int{0, 4, 8, 12, 16, 20, 24, 30, 36, 44, 52, 62, 74, 90, 110, 134, 162, 196, 238, 288, 342, 418, 576},
		short: [14]int{0, 4, 8, 12, 16, 22, 30, 40, 52, 66, 84, 106, 136, 192},
	},
	{ // 48 kHz
		long:  [23]int{0, 4, 8, 12, 16, 20, 24, 30, 36, 42, 50, 60, 72, 88, 106, 128, 156, 190, 230, 276, 330, 384, 576},
		short: [14]int{0, 4, 8, 12, 16, 22, 28, 38, 50, 64, 80, 100, 126, 192},
	},
	{ // 32 kHz
		long:  [23]int{0, 4, 8, 12, 16, 20, 24, 30, 36, 44, 54, 66, 82, 102, 126, 156, 194, 240, 296, 364, 448, 550, 576},
		short: [14]int{0, 4, 8, 12, 16, 22, 30, 42, 58, 78, 104, 138, 180, 192},
	},
	{ // 22.05 kHz
		long:  [23]int{0, 6, 12, 18, 24, 30, 36, 44, 54, 66, 80, 96, 116, 140, 168, 200, 238, 284, 336, 396, 464, 522, 576},
		short: [14]int{0, 4, 8, 12, 18, 24, 32, 42, 56, 74, 100, 132, 174, 192},
	},
	{ // 24 kHz
		long:  [23]int{0, 6, 12, 18, 24, 30, 36, 44, 54, 66, 80, 96, 114, 136, 162, 194, 232, 278, 332, 394, 464, 540, 576},
		short: [14]int{0, 4, 8, 12, 18, 26, 36, 48, 62, 80, 104, 136, 180, 192},
	},
	{ // 16 kHz
		long:  [23]int{0, 6, 12, 18, 24, 30, 36, 44, 54, 66, 80, 96, 116, 140, 168, 200, 238, 284, 336, 396, 464, 522, 576},
		short: [14]int{0, 4, 8, 12, 18, 26, 36, 48, 62, 80, 104, 134, 174, 192},
	},
	{ // 11.025 kHz
		long:  [23]int{0, 6, 12, 18, 24, 30, 36, 44, 54, 66, 80, 96, 116, 140, 168, 200, 238, 284, 336, 396, 464, 522, 576},
		short: [14]int{0, 4, 8, 12, 18, 26, 36, 48, 62, 80, 104, 134, 174, 192},
	},
	{ // 12 kHz
		long:  [23]int{0, 6, 12, 18, 24, 30, 36, 44, 54, 66, 80, 96, 116, 140, 168, 200, 238, 284, 336, 396, 464, 522, 576},
		short: [14]int{0, 4, 8, 12, 18, 26, 36, 48, 62, 80, 104, 134, 174, 192},
	},
	{ // 8 kHz
		long:  [23]int{0, 12, 24, 36, 48, 60, 72, 88, 108, 132, 160, 192, 232, 280, 336, 400, 476, 566, 568, 570, 572, 574, 576},
		short: [14]int{0, 8, 16, 24, 36, 52, 72, 96, 124, 160, 162, 164, 166, 192},
	},
}

// pretab is added to the long-block scale factors when preflag is set
// (11172-3 Table B.6).
var pretab = [22]int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 3, 2, 0}

// slen gives the scale factor bit lengths of MPEG-1 scalefac_compress
// (11172-3 2.4.2.7).
var slen = [2][16]int{
	{0, 0, 0, 0, 3, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4},
	{0, 1, 2, 3, 0, 1, 2, 3, 1, 2, 3, 1, 2, 3, 2, 3},
}

// lsfBands is nr_of_sfb_block of 13818-3 Table 2.4.3.2: how many scale
// factors each of the four slen groups holds, by partition table (0 to 2
// ordinary, 3 to 5 the intensity-stereo right channel) and block kind
// (long, short, mixed).
var lsfBands = [6][3][4]int{
	{{6, 5, 5, 5}, {9, 9, 9, 9}, {6, 9, 9, 9}},
	{{6, 5, 7, 3}, {9, 9, 12, 6}, {6, 9, 12, 6}},
	{{11, 10, 0, 0}, {18, 18, 0, 0}, {15, 18, 0, 0}},
	{{7, 7, 7, 0}, {12, 12, 12, 0}, {6, 15, 12, 0}},
	{{6, 6, 6, 3}, {12, 9, 9, 6}, {6, 12, 9, 6}},
	{{8, 8, 5, 0}, {15, 12, 9, 0}, {6, 18, 9, 0}},
}

// linbits of big-values tables 0 to 31 (11172-3 Table B.7).
var linbits = [32]int{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 6, 8, 10, 13, 4, 5, 6, 7, 8, 9, 11, 13}

// aliasCoef are the c[i] of the alias-reduction butterflies (11172-3
// Table B.9).
var aliasCoef = [8]float64{-0.6, -0.535, -0.33, -0.185, -0.095, -0.041, -0.0142, -0.0037}
