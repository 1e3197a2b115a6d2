// Package fieldtest checks, for the tests of other packages, that a
// hand-written judgement of a struct (such as "every field is empty")
// knows each of its fields, so that a field added later is not missed.
package fieldtest

import (
	"reflect"
	"testing"
)

// EachSet calls judge with zero (a pointer to a struct's zero value) and
// then with a copy of it that has one field set, for each exported field
// in turn; want says what judge must answer for the zero value, and
// judge must answer the opposite for every copy.
func EachSet[T any](t *testing.T, zero *T, want bool, judge func(*T) bool) {
	t.Helper()
	if got := judge(zero); got != want {
		t.Fatalf("%T zero: %v, want %v", *zero, got, want)
	}
	typ := reflect.TypeOf(*zero)
	for i := range typ.NumField() {
		f := typ.Field(i)
		if !f.IsExported() {
			continue
		}
		v := new(T)
		*v = *zero
		reflect.ValueOf(v).Elem().Field(i).Set(nonZero(f.Type))
		if got := judge(v); got == want {
			t.Errorf("%T with %s set: %v, want %v", *zero, f.Name, got, !want)
		}
	}
}

// nonZero is a value of t that is not its zero value.
func nonZero(t reflect.Type) reflect.Value {
	v := reflect.New(t).Elem()
	switch t.Kind() {
	case reflect.String:
		v.SetString("x")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(1)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(1)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1)
	case reflect.Pointer:
		v.Set(reflect.New(t.Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(t, 1, 1))
	case reflect.Map:
		v.Set(reflect.MakeMap(t))
		v.SetMapIndex(nonZero(t.Key()), reflect.New(t.Elem()).Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if t.Field(i).IsExported() {
				v.Field(i).Set(nonZero(t.Field(i).Type))
				return v
			}
		}
	}
	return v
}
