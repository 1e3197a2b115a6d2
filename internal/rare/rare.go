// Package rare holds the fields of a struct that most of its values leave
// empty out of line, behind one pointer, so that a value without them
// costs a pointer rather than their size. At 100,000 resources a state
// record, a desired resource and a plan action each save more than a
// hundred bytes this way.
//
// What a holder holds is never changed in place: values copied from one
// another (the instances of a manifest block, a record and its earlier
// copy) may share it. Edit installs a copy first.
package rare

// Of holds a T out of line; its zero value holds none (T's zero value).
type Of[T any] struct{ p *T }

// Get returns a copy of what o holds (T's zero value when none). Writing
// to the copy changes nothing: change it with Edit.
func (o Of[T]) Get() T {
	if o.p == nil {
		var zero T
		return zero
	}
	return *o.p
}

// Edit returns what o holds to change: a copy of it that o now holds
// alone, so that another holder sharing the old one keeps it unchanged.
// Do not keep the pointer across another Edit of o: each call copies.
func (o *Of[T]) Edit() *T {
	x := new(T)
	if o.p != nil {
		*x = *o.p
	}
	o.p = x
	return x
}

// Set makes o hold x, or none when empty (x is T's zero value, as the
// caller judges it without reflection).
func (o *Of[T]) Set(x T, empty bool) {
	if empty {
		o.p = nil
		return
	}
	p := new(T) // x stays on the caller's stack when empty
	*p = x
	o.p = p
}

// Hold makes o hold *p itself, or none for nil: the caller gives p up
// (a decoder filling values from an arena).
func (o *Of[T]) Hold(p *T) { o.p = p }

// Peek is what o holds, nil when none: for encoders and checks, which
// must not write through it.
func (o Of[T]) Peek() *T { return o.p }
