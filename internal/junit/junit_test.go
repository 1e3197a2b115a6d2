package junit

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
)

func sample() *Report {
	return &Report{Name: "voxform verify", Suites: []Suite{
		{Name: "hash", Cases: []Case{
			{Class: "synthesis.hello", Name: "hash build/hello.wav"},
			{Class: "synthesis.bye", Name: "hash build/bye.wav", Failure: &Failure{Type: "missing", Message: "recorded sha256 ab12, found no file"}},
		}},
		{Name: "loudness", Cases: []Case{
			{Class: "synthesis.hello", Name: "loudness build/hello.wav", Output: "-23.0 LUFS"},
			{Class: "synthesis.bye", Name: "loudness build/bye.wav", Skipped: "file missing"},
		}},
	}}
}

// TestWriteIsValidJUnit: what Write writes passes the schema check, and
// its counts are those of its cases.
func TestWriteIsValidJUnit(t *testing.T) {
	var b bytes.Buffer
	if err := sample().Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := Check(bytes.NewReader(b.Bytes())); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Skipped  int    `xml:"skipped,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Class   string `xml:"classname,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Type    string `xml:"type,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Tests != 4 || doc.Failures != 1 || len(doc.Suites) != 2 {
		t.Fatalf("counts: %+v", doc)
	}
	h, l := doc.Suites[0], doc.Suites[1]
	if h.Name != "hash" || h.Tests != 2 || h.Failures != 1 || l.Skipped != 1 || l.Failures != 0 {
		t.Errorf("suites: %+v", doc.Suites)
	}
	if f := h.Cases[1].Failure; f == nil || f.Type != "missing" || f.Message != "recorded sha256 ab12, found no file" || h.Cases[1].Class != "synthesis.bye" {
		t.Errorf("failure: %+v", h.Cases[1])
	}
}

// TestWriteReplacesWhatXMLCannotCarry: a control character in a name (a
// file name may hold one) comes out as U+FFFD, and the document stays
// well-formed.
func TestWriteReplacesWhatXMLCannotCarry(t *testing.T) {
	r := &Report{Name: "x", Suites: []Suite{{Name: "hash", Cases: []Case{{Class: "synthesis.a", Name: "hash a\x01b\x1b[31m.wav", Failure: &Failure{Type: "modified", Message: "m\x00", Detail: "<&>"}}}}}}
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := Check(bytes.NewReader(b.Bytes())); err != nil {
		t.Fatalf("%v\n%s", err, b.String())
	}
	if bytes.ContainsAny(b.Bytes(), "\x00\x01\x1b") || !strings.Contains(b.String(), "a\uFFFDb\uFFFD[31m.wav") {
		t.Errorf("control characters not replaced:\n%q", b.String())
	}
}

// TestCheckRefusesWhatTheSchemaDoesNot: each rule of junit-10.xsd that
// Check enforces refuses a document breaking it.
func TestCheckRefusesWhatTheSchemaDoesNot(t *testing.T) {
	for _, tt := range []struct{ doc, want string }{
		{``, "no root element"},
		{`<html/>`, "root element <html>"},
		{`<testsuites skipped="1"/>`, `attribute "skipped"`},
		{`<testsuites><testcase name="a"/></testsuites>`, "<testcase> inside <testsuites>"},
		{`<testsuites><testsuite name="a" tests="1" failures="0"/></testsuites>`, `lacks the attribute "errors"`},
		{`<testsuite name="a" tests="1" failures="0" errors="0" time="1.5s"/>`, "not a time"},
		{`<testsuite name="a" tests="1" failures="0" errors="0"><testcase classname="c"/></testsuite>`, `lacks the attribute "name"`},
		{`<testsuite name="a" tests="1" failures="0" errors="0"><testcase name="n">text</testcase></testsuite>`, "text inside <testcase>"},
		{`<testsuite name="a" tests="1" failures="0" errors="0"><testcase name="n"><failure><b/></failure></testcase></testsuite>`, "<b> inside <failure>"},
		{`<testsuites/><testsuites/>`, "a second root element"},
		{`<testsuites>`, "unexpected EOF"},
		{strings.Repeat(`<testsuite name="a" tests="1" failures="0" errors="0">`, MaxCheckDepth+1), "nested deeper than 64"},
	} {
		err := Check(strings.NewReader(tt.doc))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%.60q) = %v, want %q", tt.doc, err, tt.want)
		}
	}
	ok := `<?xml version="1.0"?><testsuites name="n" time="1,234.5" tests="1" failures="0" errors="0"><testsuite name="a" tests="1" failures="0" errors="0" time="0.25"><properties><property name="p" value="v"/></properties><testcase name="n" classname="c" time="1"><skipped message="m"/><system-out>x</system-out></testcase></testsuite></testsuites>`
	if err := Check(strings.NewReader(ok)); err != nil {
		t.Errorf("a valid document: %v", err)
	}
}
