package metrics_test

// A PromQL reader for TestGrafanaDashboard: which series and labels a
// query names. The Prometheus parser (prometheus/prometheus/promql/parser)
// would pull the whole Prometheus server module into go.mod for one test.

import (
	"fmt"
	"slices"
	"strings"
)

// checkPromQL parses q, a PromQL expression (Grafana's $variables in
// strings and ranges), and returns the series it selects. It is an error
// for q to select a series exported does not list, to match on or group
// by a label the series (or the aggregation beneath) does not carry, to
// call a function PromQL does not have, or not to parse. It reads the
// PromQL a dashboard uses, not every corner of the language.
func checkPromQL(q string, exported map[string]map[string]bool) ([]string, error) {
	toks, err := lexPromQL(q)
	if err != nil {
		return nil, err
	}
	p := &promParser{toks: toks, exported: exported}
	p.expr(0)
	if p.err == nil && p.pos < len(p.toks) {
		p.fail("unexpected %q", p.toks[p.pos].s)
	}
	return p.names, p.err
}

type tok struct {
	kind byte // 'i' identifier, 'n' number or $variable, 's' string, 'r' [range], 'p' punctuation or operator
	s    string
}

var promOps = []string{"==", "!=", "=~", "!~", ">=", "<=", ">", "<", "=", "+", "-", "*", "/", "%", "^", "(", ")", "{", "}", ",", "@"}

func lexPromQL(q string) ([]tok, error) {
	var out []tok
	isIdent := func(c byte, first bool) bool {
		return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || !first && c >= '0' && c <= '9'
	}
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			i++
		case c == '"' || c == '\'' || c == '`':
			j := i + 1
			for ; j < len(q) && q[j] != c; j++ {
				if q[j] == '\\' && c != '`' {
					j++
				}
			}
			if j >= len(q) {
				return nil, fmt.Errorf("unterminated string at %d", i)
			}
			out, i = append(out, tok{'s', q[i+1 : j]}), j+1
		case c == '[':
			j := strings.IndexByte(q[i:], ']')
			if j < 0 {
				return nil, fmt.Errorf("unbalanced [ at %d", i)
			}
			out, i = append(out, tok{'r', q[i+1 : i+j]}), i+j+1
		case isIdent(c, true):
			j := i + 1
			for j < len(q) && isIdent(q[j], false) {
				j++
			}
			out, i = append(out, tok{'i', q[i:j]}), j
		case c >= '0' && c <= '9' || c == '.' || c == '$':
			j := i + 1
			for j < len(q) && (isIdent(q[j], false) || q[j] == '.' || q[j] == '{' && c == '$' || q[j] == '}' && c == '$') {
				j++
			}
			out, i = append(out, tok{'n', q[i:j]}), j
		default:
			k := slices.IndexFunc(promOps, func(op string) bool { return strings.HasPrefix(q[i:], op) })
			if k < 0 {
				return nil, fmt.Errorf("unexpected %q at %d", c, i)
			}
			out, i = append(out, tok{'p', promOps[k]}), i+len(promOps[k])
		}
	}
	return out, nil
}

// PromQL's functions and aggregation operators (prometheus/docs/querying).
var (
	promFuncs = strings.Fields(`abs absent absent_over_time acos acosh asin asinh atan atanh avg_over_time ceil changes clamp
		clamp_max clamp_min cos cosh count_over_time day_of_month day_of_week day_of_year days_in_month deg delta deriv exp
		floor histogram_avg histogram_count histogram_fraction histogram_quantile histogram_stddev histogram_stdvar histogram_sum
		holt_winters double_exponential_smoothing hour idelta increase irate label_join label_replace last_over_time ln log10 log2
		mad_over_time max_over_time min_over_time minute month pi predict_linear present_over_time quantile_over_time rad rate
		resets round scalar sgn sin sinh sort sort_by_label sort_by_label_desc sort_desc sqrt stddev_over_time stdvar_over_time
		sum_over_time tan tanh time timestamp vector year`)
	promAggs       = strings.Fields(`sum min max avg group stddev stdvar count count_values bottomk topk quantile limitk limit_ratio`)
	promAggsParam  = strings.Fields(`count_values bottomk topk quantile limitk limit_ratio`)
	promBinops     = map[string]int{"or": 1, "and": 2, "unless": 2, "==": 3, "!=": 3, ">": 3, "<": 3, ">=": 3, "<=": 3, "+": 4, "-": 4, "*": 5, "/": 5, "%": 5, "atan2": 5, "^": 6}
	promKeywords   = strings.Fields(`by without on ignoring group_left group_right bool offset and or unless atan2`)
	promComparison = map[string]bool{"==": true, "!=": true, ">": true, "<": true, ">=": true, "<=": true}
)

type promParser struct {
	toks     []tok
	pos      int
	exported map[string]map[string]bool
	names    []string
	err      error
}

func (p *promParser) fail(format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf(format, args...)
	}
}

func (p *promParser) peek() tok {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return tok{}
}

func (p *promParser) next() tok { t := p.peek(); p.pos++; return t }

func (p *promParser) want(s string) {
	if t := p.next(); t.s != s || t.kind != 'p' {
		p.fail("unbalanced: want %q, got %q", s, t.s)
	}
}

// labelList reads "(a, b)" after by, without, on, ignoring or a group
// modifier.
func (p *promParser) labelList() []string {
	p.want("(")
	var ls []string
	for p.err == nil && p.peek().s != ")" {
		t := p.next()
		if t.kind != 'i' {
			p.fail("want a label name, got %q", t.s)
		}
		ls = append(ls, t.s)
		if p.peek().s == "," {
			p.next()
		}
	}
	p.want(")")
	return ls
}

// vector is what an expression yields: a scalar or string (labels nil,
// scalar set), or an instant or range vector and the labels its series
// carry.
type vector struct {
	scalar bool
	labels map[string]bool
}

func (p *promParser) need(v vector, ls []string, where string) {
	for _, l := range ls {
		if !v.scalar && !v.labels[l] {
			p.fail("label %s (%s) is not on the series beneath", l, where)
		}
	}
}

// expr parses a binary expression by precedence climbing.
func (p *promParser) expr(minPrec int) vector {
	left := p.unary()
	for p.err == nil {
		op := p.peek()
		prec, ok := promBinops[op.s]
		if !ok || prec < minPrec || op.kind == 's' || op.kind == 'n' {
			return left
		}
		p.next()
		if p.peek().s == "bool" {
			p.next()
		}
		var on, group []string
		if s := p.peek().s; s == "on" || s == "ignoring" {
			p.next()
			if l := p.labelList(); s == "on" {
				on = l
			}
		}
		if s := p.peek().s; s == "group_left" || s == "group_right" {
			p.next()
			if p.peek().s == "(" {
				group = p.labelList()
			}
		}
		next := prec + 1
		if op.s == "^" {
			next = prec // right-associative
		}
		right := p.expr(next)
		p.need(left, on, "on")
		p.need(right, on, "on")
		switch {
		case left.scalar:
			left = right
		case right.scalar || promComparison[op.s]:
		case on != nil:
			left.labels = setOf(append(on, group...)...)
		}
	}
	return left
}

func (p *promParser) unary() vector {
	if s := p.peek().s; s == "-" || s == "+" {
		p.next()
	}
	v := p.primary()
	for p.err == nil {
		switch t := p.peek(); {
		case t.kind == 'r': // a range or a subquery
			p.next()
		case t.s == "offset" || t.s == "@":
			p.next()
			if p.peek().s == "-" {
				p.next()
			}
			p.next()
		default:
			return v
		}
	}
	return v
}

func (p *promParser) primary() vector {
	t := p.next()
	switch {
	case t.kind == 'n' || t.kind == 's':
		return vector{scalar: true}
	case t.s == "(" && t.kind == 'p':
		v := p.expr(0)
		p.want(")")
		return v
	case t.s == "{" && t.kind == 'p':
		p.fail("a selector without a metric name: name the series")
		return vector{}
	case t.kind != 'i':
		p.fail("unexpected %q", t.s)
		return vector{}
	case slices.Contains(promAggs, t.s):
		return p.aggregation(t.s)
	case p.peek().s == "(":
		return p.call(t.s)
	case slices.Contains(promKeywords, t.s):
		p.fail("unexpected keyword %s", t.s)
		return vector{}
	}
	labels, ok := p.exported[t.s]
	if !ok {
		p.fail("%s is not a series package metrics exports", t.s)
		labels = map[string]bool{}
	}
	p.names = append(p.names, t.s)
	if p.peek().s == "{" {
		p.next()
		for p.err == nil && p.peek().s != "}" {
			l := p.next()
			if l.kind != 'i' {
				p.fail("want a label name in %s{...}, got %q", t.s, l.s)
			}
			if !labels[l.s] {
				p.fail("%s has no label %s", t.s, l.s)
			}
			if op := p.next(); !slices.Contains([]string{"=", "!=", "=~", "!~"}, op.s) {
				p.fail("want a matcher after %s, got %q", l.s, op.s)
			}
			if v := p.next(); v.kind != 's' {
				p.fail("want a string after %s's matcher, got %q", l.s, v.s)
			}
			if p.peek().s == "," {
				p.next()
			}
		}
		p.want("}")
	}
	return vector{labels: labels}
}

func (p *promParser) aggregation(op string) vector {
	var by, without []string
	grouping := func() {
		switch p.peek().s {
		case "by":
			p.next()
			by = p.labelList()
		case "without":
			p.next()
			without = p.labelList()
		}
	}
	grouping()
	p.want("(")
	var param string
	if slices.Contains(promAggsParam, op) {
		param = p.peek().s
		p.expr(0)
		p.want(",")
	}
	arg := p.expr(0)
	p.want(")")
	if by == nil && without == nil {
		grouping()
	}
	p.need(arg, by, op+" by")
	p.need(arg, without, op+" without")
	switch {
	case op == "topk" || op == "bottomk" || op == "limitk" || op == "limit_ratio":
		return arg // the series themselves, labels and all
	case without != nil:
		ls := map[string]bool{}
		for l := range arg.labels {
			if !slices.Contains(without, l) && l != "__name__" {
				ls[l] = true
			}
		}
		return vector{labels: ls}
	}
	if op == "count_values" {
		by = append(by, strings.Trim(param, `"`))
	}
	return vector{labels: setOf(by...)}
}

func (p *promParser) call(fn string) vector {
	if !slices.Contains(promFuncs, fn) {
		p.fail("%s is not a PromQL function", fn)
	}
	p.want("(")
	var args []vector
	var strs []string
	for p.err == nil && p.peek().s != ")" {
		strs = append(strs, p.peek().s)
		args = append(args, p.expr(0))
		if p.peek().s == "," {
			p.next()
		}
	}
	p.want(")")
	switch fn {
	case "time", "pi", "scalar":
		return vector{scalar: true}
	case "vector":
		return vector{labels: map[string]bool{}}
	case "label_replace", "label_join":
		if len(args) < 3 {
			p.fail("%s: too few arguments", fn)
			return vector{}
		}
		srcs := strs[2:]
		if fn == "label_replace" && len(strs) == 5 {
			srcs = strs[3:4]
		} else if fn == "label_replace" {
			p.fail("label_replace takes 5 arguments")
		}
		if fn == "label_join" {
			srcs = strs[3:]
		}
		p.need(args[0], srcs, fn+"'s source")
		v := vector{labels: setOf(strs[1])}
		for l := range args[0].labels {
			v.labels[l] = true
		}
		return v
	}
	for _, a := range args {
		if !a.scalar {
			return a
		}
	}
	return vector{scalar: true}
}

func setOf(ls ...string) map[string]bool {
	m := map[string]bool{}
	for _, l := range ls {
		m[l] = true
	}
	return m
}
