package rare

import "testing"

type fields struct {
	Name string
	List []string
}

func TestGetOfNoneIsZero(t *testing.T) {
	var o Of[fields]
	if got := o.Get(); got.Name != "" || got.List != nil || o.Peek() != nil {
		t.Fatalf("empty holder: %+v, %v", got, o.Peek())
	}
}

func TestEditLeavesASharedValueAlone(t *testing.T) {
	var a Of[fields]
	a.Set(fields{Name: "one"}, false)
	b := a // b shares what a holds, as copied values do
	a.Edit().Name = "two"
	if b.Get().Name != "one" {
		t.Fatalf("an edit of a changed b: %q", b.Get().Name)
	}
	if a.Get().Name != "two" {
		t.Fatalf("a after its edit: %q", a.Get().Name)
	}
	var c Of[fields]
	c.Edit().List = []string{"x"}
	if got := c.Get().List; len(got) != 1 {
		t.Fatalf("an edit of an empty holder: %v", got)
	}
}

func TestGetIsACopy(t *testing.T) {
	var a Of[fields]
	a.Set(fields{Name: "one"}, false)
	x := a.Get()
	x.Name = "changed"
	if a.Get().Name != "one" {
		t.Fatalf("writing the copy changed the holder: %q", a.Get().Name)
	}
}

func TestSetEmptyHoldsNone(t *testing.T) {
	var a Of[fields]
	a.Set(fields{Name: "one"}, false)
	a.Set(fields{}, true)
	if a.Peek() != nil {
		t.Fatal("Set(empty) kept a value")
	}
	p := &fields{Name: "arena"}
	a.Hold(p)
	if a.Peek() != p {
		t.Fatal("Hold copied its value")
	}
}
