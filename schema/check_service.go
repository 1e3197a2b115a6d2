package schema

import (
	"net/url"
	"slices"
	"strings"

	"github.com/voxform/voxform/cache"
	"github.com/voxform/voxform/contract"
	"github.com/voxform/voxform/internal/numfmt"
	"github.com/voxform/voxform/manifest"
)

// EndpointNames are the endpoint names service.paths may override; they
// are the keys of speechapi.DefaultPaths.
var EndpointNames = []string{"tts_inference", "tts_sse", "tts_realtime", "tts_embeddings", "stt",
	"stt_realtime", "stt_batch_submit", "stt_batch_status", "stt_jobs", "stt_job", "stt_job_start",
	"stt_job_files", "stt_job_cancel"}

func (c *checker) checkService() {
	s := c.m.Service
	at := func(f string) manifest.Pos { return manifest.FieldPos(s.Fields, f, s.Pos) }
	if _, err := contract.ParseProfile(string(s.Profile)); err != nil {
		p := at("profile")
		if env := s.Fields["profile"]; env.File == "VOXFORM_PROFILE" {
			p = env // set by the environment, which wins over the manifest
		}
		c.ds.Errorf(p, "service.%v", err).
			WithHint("live speaks to the live service (the default); documented to a service that follows the documents")
	}
	c.checkURL(s.BaseURL, at("base_url"), "base_url", "https")
	c.checkURL(s.WSBaseURL, at("ws_base_url"), "ws_base_url", "wss")
	if s.Retries < 0 || s.Retries > 100 {
		c.ds.Errorf(at("retries"), "service.retries %d is out of range 0 to 100", s.Retries)
	}
	if _, set := s.Fields["parallelism"]; set && (s.Parallelism < 1 || s.Parallelism > 1024) {
		c.ds.Errorf(at("parallelism"), "service.parallelism %d is out of range 1 to 1024", s.Parallelism)
	}
	if _, set := s.Fields["max_text_chars"]; set {
		switch {
		case s.MaxTextChars < 1 || s.MaxTextChars > contract.MaxTextCharsLimit:
			c.ds.Errorf(at("max_text_chars"), "service.max_text_chars %d is out of range 1 to %s", s.MaxTextChars, numfmt.Thousands(contract.MaxTextCharsLimit))
		case s.MaxTextChars > MaxTextWarn:
			c.ds.Warnf(at("max_text_chars"), "service.max_text_chars %d is over %d; the service's maximum is not documented and the emulator refuses longer texts", s.MaxTextChars, MaxTextWarn).
				WithHint("leave it unset for %d characters a request", contract.DefaultMaxChars)
		}
	}
	if _, set := s.Fields["requests_per_second"]; set && s.RequestsPerSecond <= 0 {
		c.ds.Errorf(at("requests_per_second"), "service.requests_per_second %g must be positive", s.RequestsPerSecond)
	}
	if s.APIKeyEnv == "" || strings.ContainsAny(s.APIKeyEnv, "= \t$") {
		c.ds.Errorf(at("api_key_env"), "service.api_key_env %q is not an environment variable name", s.APIKeyEnv)
	}
	for _, name := range sortedKeys(s.Paths) {
		p := s.Paths[name]
		if !slices.Contains(EndpointNames, name) {
			d := c.ds.Errorf(at("paths."+name), "service.paths: unknown endpoint %q", name)
			if sg := manifest.Suggest(name, EndpointNames); sg != "" {
				d.WithHint("did you mean %q?", sg)
			} else {
				d.WithHint("endpoints: %s", strings.Join(EndpointNames, ", "))
			}
		}
		if !strings.HasPrefix(p, "/") {
			c.ds.Errorf(at("paths."+name), "service.paths.%s %q must start with /", name, p)
		}
	}
}

// checkURL checks a base URL: absolute, with the secure scheme unless it
// points at the loopback interface (the emulator).
func (c *checker) checkURL(raw string, pos manifest.Pos, field, scheme string) {
	if raw == "" || strings.Contains(raw, "${") {
		return
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		c.ds.Errorf(pos, "service.%s %q is not an absolute URL", field, raw)
		return
	}
	insecure := map[string]string{"https": "http", "wss": "ws"}[scheme]
	switch {
	case u.Scheme == scheme:
	case u.Scheme == insecure && contract.IsLoopback(u.Host):
	default:
		c.ds.Errorf(pos, "service.%s %q must use %s://", field, raw, scheme).
			WithHint("the API key travels in a header; only the loopback emulator may use %s://", insecure)
	}
}

// checkCache checks the cache: block (and the variables that set its
// fields) as far as can be told without the network: the remote's URL and
// endpoint. Reaching the remote is the plan's.
func (c *checker) checkCache() {
	cc := c.m.Cache
	at := func(f string) manifest.Pos { return manifest.FieldPos(cc.Fields, f, cc.Pos) }
	if cc.Remote == "" {
		for _, f := range []string{"endpoint", "region"} {
			if _, set := cc.Fields[f]; set {
				c.ds.Warnf(at(f), "cache.%s has no effect without cache.remote", f)
			}
		}
		return
	}
	if _, err := cache.OpenRemote(cache.RemoteConfig{URL: cc.Remote, Endpoint: cc.Endpoint, Region: cc.Region}); err != nil {
		c.ds.Errorf(at("remote"), "cache: %v", err).
			WithHint("a remote is s3://bucket/prefix (endpoint: host[:port], http only on loopback) or file:///dir")
	}
}

func (c *checker) checkCatalog() {
	ext := c.m.Catalog
	for _, group := range []string{"voices", "languages"} {
		m := ext.Voices
		if group == "languages" {
			m = ext.Languages
		}
		for _, model := range sortedKeys(m) {
			if c.cat.Model(model) == nil {
				d := c.ds.Errorf(manifest.FieldPos(ext.Fields, group+"."+model, ext.Pos), "catalog: unknown model %q", model)
				if sg := manifest.Suggest(model, c.cat.ModelNames()); sg != "" {
					d.WithHint("did you mean %q?", sg)
				} else {
					d.WithHint("declare new models under catalog.models")
				}
			}
		}
	}
}

func (c *checker) checkBudget() {
	b := c.m.Budget
	if b == nil {
		return
	}
	if b.MaxCharacters != nil && *b.MaxCharacters < 0 {
		c.ds.Errorf(manifest.FieldPos(b.Fields, "max_characters", b.Pos), "budget.max_characters %d must not be negative", *b.MaxCharacters)
	}
	if b.MaxAudioSeconds != nil && *b.MaxAudioSeconds < 0 {
		c.ds.Errorf(manifest.FieldPos(b.Fields, "max_audio_seconds", b.Pos), "budget.max_audio_seconds %g must not be negative", *b.MaxAudioSeconds)
	}
}

func (c *checker) checkLoudness() {
	l := c.m.Loudness
	if l == nil {
		return
	}
	if v := l.MaxDeviation; v != nil {
		if err := manifest.CheckMaxDeviation(*v); err != nil {
			c.ds.Errorf(manifest.FieldPos(l.Fields, "max_deviation", l.Pos), "loudness.max_deviation %v", err)
		}
	}
	if v := l.MaxTruePeak; v != nil {
		if err := manifest.CheckMaxTruePeak(*v); err != nil {
			c.ds.Errorf(manifest.FieldPos(l.Fields, "max_true_peak", l.Pos), "loudness.max_true_peak %v", err)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
