package audio

// ITU-T G.711 companding. Mu-law works on the 14 most significant bits of a
// 16-bit sample, A-law on the 13 most significant; decoding returns the
// segment midpoint scaled back to 16 bits, so MuLawDecode(0xFF) is 0,
// MuLawDecode(0x00) is -32124, ALawEncode(0) is 0xD5 and ALawDecode(0xD5)
// is 8, as in the recommendation's tables.

const (
	muLawBias = 0x84 // 33 in the 14-bit domain, scaled to 16 bits
	muLawClip = 8159 // largest 14-bit magnitude before biasing
)

// MuLawEncode compresses one 16-bit linear sample to a G.711 mu-law byte.
func MuLawEncode(s int16) byte {
	x := int(s) >> 2
	mask := byte(0xFF)
	if x < 0 {
		// One's complement, as in the ITU-T G.191 reference coder: -1
		// codes as negative zero (0x7F), not as the first negative step.
		x = ^x
		mask = 0x7F
	}
	if x > muLawClip {
		x = muLawClip
	}
	x += muLawBias >> 2
	seg := 0
	for end := 0x3F; x > end && seg < 8; end = end<<1 | 1 {
		seg++
	}
	if seg >= 8 {
		return 0x7F ^ mask
	}
	code := byte(seg<<4) | byte((x>>(seg+1))&0x0F)
	return code ^ mask
}

// MuLawDecode expands one G.711 mu-law byte to a 16-bit linear sample.
func MuLawDecode(u byte) int16 {
	u = ^u
	t := (int(u&0x0F) << 3) + muLawBias
	t <<= (u & 0x70) >> 4
	if u&0x80 != 0 {
		return int16(muLawBias - t)
	}
	return int16(t - muLawBias)
}

// ALawEncode compresses one 16-bit linear sample to a G.711 A-law byte
// (even bits inverted, as transmitted).
func ALawEncode(s int16) byte {
	x := int(s) >> 3
	mask := byte(0xD5)
	if x < 0 {
		mask = 0x55
		x = -x - 1
	}
	seg := 0
	for end := 0x1F; x > end && seg < 8; end = end<<1 | 1 {
		seg++
	}
	if seg >= 8 {
		return 0x7F ^ mask
	}
	code := byte(seg << 4)
	if seg < 2 {
		code |= byte((x >> 1) & 0x0F)
	} else {
		code |= byte((x >> seg) & 0x0F)
	}
	return code ^ mask
}

// ALawDecode expands one G.711 A-law byte to a 16-bit linear sample.
func ALawDecode(a byte) int16 {
	a ^= 0x55
	t := int(a&0x0F) << 4
	seg := int(a&0x70) >> 4
	switch seg {
	case 0:
		t += 8
	case 1:
		t += 0x108
	default:
		t += 0x108
		t <<= seg - 1
	}
	if a&0x80 != 0 {
		return int16(t)
	}
	return int16(-t)
}
