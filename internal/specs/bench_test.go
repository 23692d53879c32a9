package specs

import "testing"

func BenchmarkCheckCat(b *testing.B) {
	s, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	r, _ := newFixture(b)
	argv := []string{"cat", "a.txt"}
	root := r.Root()
	if v := s.Check(argv, root, r); v.Outcome != Allow {
		b.Fatalf("cat a.txt: %v %s", v.Outcome, v.Reason)
	}
	b.ReportAllocs()
	for b.Loop() {
		s.Check(argv, root, r)
	}
}

func BenchmarkResolve(b *testing.B) {
	r, _ := newFixture(b)
	root := r.Root()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Resolve(root, "inlink/sub/../a.txt"); err != nil {
			b.Fatal(err)
		}
	}
}
