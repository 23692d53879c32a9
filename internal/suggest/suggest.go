// Package suggest finds the name a person most likely meant when they
// mistyped one: a command, a flag, a config key.
package suggest

import "strings"

// Closest returns the candidate nearest to typed by edit distance
// (Levenshtein, case-insensitive, '-' and '_' counted as the same), or ""
// when none is near enough: at most one edit for names up to four
// characters, two up to eight, three beyond. A tie goes to the first
// candidate. typed equal to a candidate returns that candidate.
func Closest(typed string, candidates []string) string {
	t := norm(typed)
	if t == "" {
		return ""
	}
	best, bestD := "", -1
	for _, c := range candidates {
		d := Distance(t, norm(c))
		if d <= limit(len(t)) && (bestD < 0 || d < bestD) {
			best, bestD = c, d
		}
	}
	return best
}

func limit(n int) int {
	switch {
	case n <= 4:
		return 1
	case n <= 8:
		return 2
	}
	return 3
}

func norm(s string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimLeft(s, "-")), "_", "-")
}

// Distance is the Levenshtein distance between a and b, in runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
