// Package junit writes test reports in the JUnit XML format that CI
// systems read (GitHub Actions reporters, GitLab, Jenkins), in the shape of
// the schema Jenkins validates against (xunit-plugin's junit-10.xsd): a
// <testsuites> root holding <testsuite> elements with name, tests,
// failures and errors, each holding <testcase> elements with a name and a
// classname, a failing case carrying one <failure message type>. It is the
// one home of that format; callers say what was checked and how it went.
package junit

import (
	"bufio"
	"encoding/xml"
	"io"
	"strconv"
)

// Report is one run of checks: its suites in order.
type Report struct {
	// Name names the run (for example "voxform verify").
	Name   string
	Suites []Suite
}

// Suite is one kind of check (for example "hash" or "loudness").
type Suite struct {
	Name  string
	Cases []Case
}

// Case is one check of one thing: Class is what was checked (a resource
// address), Name the check and its object (for example "hash
// build/hello.wav").
type Case struct {
	Class, Name string
	// Failure is set when the check failed.
	Failure *Failure
	// Skipped, when not empty, says why the check could not be made.
	Skipped string
	// Output is shown beside the case (measured figures of a passing
	// check).
	Output string
}

// Failure is how a check failed: Type is a short kind ("modified"),
// Message one line with the measured and the target values, Detail any
// longer text.
type Failure struct {
	Type, Message, Detail string
}

// Failed counts the failed cases of s.
func (s *Suite) Failed() int {
	n := 0
	for i := range s.Cases {
		if s.Cases[i].Failure != nil {
			n++
		}
	}
	return n
}

// skippedCount counts the skipped cases of s.
func (s *Suite) skippedCount() int {
	n := 0
	for i := range s.Cases {
		if s.Cases[i].Skipped != "" && s.Cases[i].Failure == nil {
			n++
		}
	}
	return n
}

// Write writes r as a JUnit XML document. Text that XML cannot carry (a
// control character in a file name) is written as U+FFFD.
func (r *Report) Write(w io.Writer) error {
	bw := bufio.NewWriter(w)
	if _, err := bw.WriteString(xml.Header); err != nil {
		return err
	}
	e := xml.NewEncoder(bw)
	e.Indent("", "  ")
	tests, failures := 0, 0
	for i := range r.Suites {
		tests += len(r.Suites[i].Cases)
		failures += r.Suites[i].Failed()
	}
	root := start("testsuites", "name", r.Name, "tests", strconv.Itoa(tests), "failures", strconv.Itoa(failures), "errors", "0")
	if err := e.EncodeToken(root); err != nil {
		return err
	}
	for i := range r.Suites {
		if err := writeSuite(e, &r.Suites[i]); err != nil {
			return err
		}
	}
	if err := e.EncodeToken(root.End()); err != nil {
		return err
	}
	if err := e.Flush(); err != nil {
		return err
	}
	if _, err := bw.WriteString("\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// writeSuite writes one <testsuite> and its cases.
func writeSuite(e *xml.Encoder, s *Suite) error {
	el := start("testsuite", "name", s.Name, "tests", strconv.Itoa(len(s.Cases)),
		"failures", strconv.Itoa(s.Failed()), "errors", "0", "skipped", strconv.Itoa(s.skippedCount()))
	if err := e.EncodeToken(el); err != nil {
		return err
	}
	for i := range s.Cases {
		if err := writeCase(e, &s.Cases[i]); err != nil {
			return err
		}
	}
	return e.EncodeToken(el.End())
}

// writeCase writes one <testcase>.
func writeCase(e *xml.Encoder, c *Case) error {
	el := start("testcase", "name", c.Name, "classname", c.Class)
	if err := e.EncodeToken(el); err != nil {
		return err
	}
	switch {
	case c.Failure != nil:
		f := start("failure", "message", c.Failure.Message, "type", c.Failure.Type)
		if err := textElement(e, f, c.Failure.Detail); err != nil {
			return err
		}
	case c.Skipped != "":
		if err := textElement(e, start("skipped", "message", c.Skipped), ""); err != nil {
			return err
		}
	}
	if c.Output != "" {
		if err := textElement(e, start("system-out"), c.Output); err != nil {
			return err
		}
	}
	return e.EncodeToken(el.End())
}

// textElement writes el holding text (nothing when empty).
func textElement(e *xml.Encoder, el xml.StartElement, text string) error {
	if err := e.EncodeToken(el); err != nil {
		return err
	}
	if text != "" {
		if err := e.EncodeToken(xml.CharData(text)); err != nil {
			return err
		}
	}
	return e.EncodeToken(el.End())
}

// start is the start element name with the attributes kv (name, value,
// name, value…).
func start(name string, kv ...string) xml.StartElement {
	el := xml.StartElement{Name: xml.Name{Local: name}}
	for i := 0; i+1 < len(kv); i += 2 {
		el.Attr = append(el.Attr, xml.Attr{Name: xml.Name{Local: kv[i]}, Value: kv[i+1]})
	}
	return el
}
