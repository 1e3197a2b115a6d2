package state

import (
	"context"
	"os"
	"strings"
	"testing"
)

// A resource that is null, in the state file or put by a journal line, is
// refused with its address, never dereferenced: a repository can ship
// either file.
func TestNullResourceRefused(t *testing.T) {
	t.Run("journal", func(t *testing.T) {
		b := NewLocal(t.TempDir())
		f := New()
		f.Resources["synthesis.a"] = sampleResource("x")
		if err := b.writeState(f); err != nil {
			t.Fatal(err)
		}
		begin, _ := encodeRecord(&record{Op: opBegin, Lineage: f.Lineage, BaseSerial: f.Serial})
		put, _ := encodeRecord(&record{Op: opPut, Resources: map[string]*Resource{"synthesis.b": nil}})
		if err := os.WriteFile(b.StatePath()+JournalSuffix, append(begin, put...), 0o644); err != nil {
			t.Fatal(err)
		}
		checkNullRefused(t, b)
	})
	t.Run("file", func(t *testing.T) {
		b := NewLocal(t.TempDir())
		f := New()
		f.Resources["synthesis.a"] = sampleResource("x")
		if err := b.writeState(f); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(b.StatePath())
		if err != nil {
			t.Fatal(err)
		}
		data = []byte(strings.Replace(string(data), `"resources": {`, `"resources": {"synthesis.b": null,`, 1))
		if !strings.Contains(string(data), `"synthesis.b": null`) {
			t.Fatal("the state file's resources are not where the test expects them")
		}
		if err := os.WriteFile(b.StatePath(), data, 0o644); err != nil {
			t.Fatal(err)
		}
		checkNullRefused(t, b)
	})
}

func checkNullRefused(t *testing.T, b *Local) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v", r)
		}
	}()
	if _, err := b.Read(context.Background()); err == nil || !strings.Contains(err.Error(), "synthesis.b") || !strings.Contains(err.Error(), "null") {
		t.Errorf("read: %v, want the null resource refused by its address", err)
	}
	if _, err := ListAddresses(context.Background(), b); err == nil {
		t.Errorf("list: no error, want the null resource refused")
	}
}
