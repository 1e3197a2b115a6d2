package state

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/voxform/voxform/internal/rare"
)

// decodedSnapshot writes f's state file and its snapshot in a new
// directory and returns the snapshot's path and key.
func decodedSnapshot(t *testing.T, f *File) (*Local, [32]byte) {
	t.Helper()
	b := NewLocal(t.TempDir())
	if err := b.writeState(f); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Read(context.Background()); err != nil { // JSON, writes the snapshot
		t.Fatal(err)
	}
	return b, snapshotKeyOf(t, b.StatePath())
}

// A snapshot of a large state decodes without an allocation for each
// string (or each resource): the plan right after an apply of 100,000
// spent a second and a half of CPU in gob's allocations.
func TestSnapshotDecodesInFewAllocations(t *testing.T) {
	const n = 5000
	f := New()
	for i := range n {
		r := sampleResource(fmt.Sprintf("text %d", i))
		r.Fingerprint = fmt.Sprintf("%064x", i)
		r.Outputs[0].Path = fmt.Sprintf("build/%d.wav", i)
		r.Edit().RequestIDs = []string{fmt.Sprintf("req-%d", i), "req-b"}
		f.Resources[fmt.Sprintf(`synthesis.m["%d"]`, i)] = r
	}
	b, key := decodedSnapshot(t, f)
	allocs := testing.AllocsPerRun(2, func() {
		fh, err := openCacheFile(b.Dir, snapshotName)
		if err != nil {
			t.Fatal(err)
		}
		defer fh.Close()
		var sb snapshotBody
		if !readSnapshot(fh, key, &sb) || len(sb.resources) != n {
			t.Fatal("snapshot not read")
		}
	})
	if allocs > n/10 {
		t.Errorf("decoding a snapshot of %d resources made %.0f allocations; want at most %d (not one a string)", n, allocs, n/10)
	}
}

// Every field of a resource reads back from a snapshot as from the state
// file: those a record holds, and the others, kept whole.
func TestSnapshotKeepsEveryField(t *testing.T) {
	base := sampleResource("x")
	f := New()
	rt := reflect.TypeFor[Resource]()
	for i := range rt.NumField() {
		field := rt.Field(i)
		if !field.IsExported() || field.Name == "Request" {
			continue // Request: the request of every resource here
		}
		r := *base
		r.Outputs = append([]Output(nil), base.Outputs...)
		fill(t, reflect.ValueOf(&r).Elem().Field(i), field.Name)
		f.Resources[fmt.Sprintf("synthesis.%s", field.Name)] = &r
	}
	dt := reflect.TypeFor[Details]()
	for i := range dt.NumField() { // the fields few resources set
		r := *base
		d := r.Details()
		fill(t, reflect.ValueOf(&d).Elem().Field(i), dt.Field(i).Name)
		r.WithDetails(d)
		f.Resources[fmt.Sprintf("synthesis.details_%s", dt.Field(i).Name)] = &r
	}
	for _, name := range []string{"Format", "Listen", "Delivery"} { // of an output
		r := *base
		o := base.Outputs[0]
		fill(t, reflect.ValueOf(&o).Elem().FieldByName(name), name)
		r.Outputs = []Output{o, {Path: "b.wav", SHA256: "ee", Size: 0}} // the second without loudness
		f.Resources["synthesis.output_"+name] = &r
	}
	silent := *base
	silent.Outputs = []Output{{Path: "s.wav", SHA256: "dd", Loudness: &Loudness{Silent: true}}}
	f.Resources["synthesis.silent"] = &silent
	got := codecRoundTrip(t, f)
	request := cmp.FilterPath(func(p cmp.Path) bool {
		s := p.Last().String()
		return s == ".rawRequest" || s == ".Request"
	}, cmp.Ignore())
	if diff := cmp.Diff(f.Resources, got, cmp.AllowUnexported(Resource{}, rare.Of[Details]{}), request); diff != "" {
		t.Fatal(diff)
	}
	for a, r := range f.Resources {
		want, _ := marshalNoEscape(r.RequestFields())
		if back, _ := marshalNoEscape(got[a].RequestFields()); !bytes.Equal(back, want) {
			t.Fatalf("%s request: %s, want %s", a, back, want)
		}
	}
	if n := wholeRecords(f); n == 0 || n == len(f.Resources) {
		t.Errorf("%d of %d resources kept whole: want the rare fields' only", n, len(f.Resources))
	}
}

// codecRoundTrip is f's resources written as a snapshot's and read back.
func codecRoundTrip(t *testing.T, f *File) map[string]*Resource {
	t.Helper()
	var buf bytes.Buffer
	sb := snapshotOf(f)
	w := bufio.NewWriter(&buf)
	if err := sb.encodeResources(w); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	back := snapshotBody{N: len(f.Resources)}
	if !back.decodeResources(bufio.NewReader(&buf), int64(buf.Len())) {
		t.Fatal("resources not read back")
	}
	return back.resources
}

// wholeRecords counts the resources of f a snapshot keeps whole.
func wholeRecords(f *File) int {
	n := 0
	for _, r := range f.Resources {
		if !compact(r) {
			n++
		}
	}
	return n
}

// fill sets v, a field named name, to a value that is not its zero.
func fill(t *testing.T, v reflect.Value, name string) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		v.SetString(name + "-value")
	case reflect.Int, reflect.Int64:
		v.SetInt(7)
	case reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		e := reflect.New(v.Type().Elem())
		fillStruct(t, e.Elem())
		v.Set(e)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(t, s.Index(0), name)
		v.Set(s)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 11, 28, 7, 0, 0, 5, time.FixedZone("", 3600))))
			return
		}
		fillStruct(t, v)
	default:
		t.Fatalf("%s: no value for a %s", name, v.Kind())
	}
}

// fillStruct fills the exported fields of the struct v that a state file
// writes.
func fillStruct(t *testing.T, v reflect.Value) {
	t.Helper()
	if v.Kind() != reflect.Struct || v.Type() == reflect.TypeFor[time.Time]() {
		fill(t, v, v.Type().Name())
		return
	}
	for i := range v.NumField() {
		if f := v.Type().Field(i); f.IsExported() && f.Tag.Get("json") != "-" {
			fill(t, v.Field(i), f.Name)
		}
	}
}

// A snapshot whose blocks are damaged (past its checksum, which only a
// bug or a hostile file would be) is refused or read whole: never a
// panic, never a part of it.
func TestSnapshotDamagedBlocksRefused(t *testing.T) {
	f := New()
	f.Resources["synthesis.a"] = sampleResource("a")
	f.Resources["synthesis.b"] = sampleResource("b")
	f.Resources["synthesis.b"].Edit().Approval = &Approval{By: "ana"}
	var body bytes.Buffer
	sb := snapshotOf(f)
	w := bufio.NewWriter(&body)
	if err := gob.NewEncoder(w).Encode(&sb); err != nil {
		t.Fatal(err)
	}
	head := body.Len() + w.Buffered()
	if err := sb.encodeResources(w); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	clean := body.Bytes()
	try := func(b []byte) {
		got := snapshotBody{N: 2}
		if got.decodeResources(bufio.NewReader(bytes.NewReader(b[head:])), int64(len(b)-head)) && len(got.resources) != 2 {
			t.Fatalf("a damaged snapshot read as %d resources", len(got.resources))
		}
	}
	for i := head; i < len(clean); i++ {
		try(clean[:i])
		for _, x := range []byte{0x01, 0x80, 0xff} {
			b := bytes.Clone(clean)
			b[i] ^= x
			try(b)
		}
	}
}
