package catalog

import (
	"reflect"
	"testing"
)

func TestGenerateIsDeterministic(t *testing.T) {
	a := Generate(DefaultSize, DefaultSeed)
	b := Generate(DefaultSize, DefaultSeed)
	if !reflect.DeepEqual(a.All(), b.All()) {
		t.Fatal("two catalogs from the same seed differ")
	}
	if c := Generate(DefaultSize, DefaultSeed+1); reflect.DeepEqual(a.All(), c.All()) {
		t.Fatal("catalogs from different seeds are identical")
	}
}

func TestProduct(t *testing.T) {
	c := Generate(10, DefaultSeed)
	tests := []struct {
		id     int
		wantOK bool
	}{
		{id: 1, wantOK: true},
		{id: 10, wantOK: true},
		{id: 0, wantOK: false},
		{id: 11, wantOK: false},
		{id: -1, wantOK: false},
	}
	for _, tt := range tests {
		p, ok := c.Product(tt.id)
		if ok != tt.wantOK {
			t.Errorf("Product(%d) ok = %v, want %v", tt.id, ok, tt.wantOK)
		}
		if ok && (p.ID != tt.id || p.Name == "" || len(p.Tags) == 0 || p.PriceCents <= 0) {
			t.Errorf("Product(%d) = %+v, want a complete product with that ID", tt.id, p)
		}
	}
}
