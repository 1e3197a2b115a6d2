package speechapi

// RedactText returns s without any form of the client's API key (as sent,
// URL-encoded, JSON-escaped or base64): text a server sent that voxform
// keeps, such as a listening check's transcript, which reaches the state,
// the cache and reports, passes through it first. A nil client returns s.
func (c *Client) RedactText(s string) string {
	if c == nil {
		return s
	}
	return c.red.text(s)
}
