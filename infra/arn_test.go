package main

import (
	"regexp"
	"strings"
	"testing"
)

// The account, region and API id the ARNs of these tests are rendered with.
const (
	testPartition = "aws"
	testRegion    = "eu-west-3"
	testAccount   = "123456789012"
	testAPI       = "a1b2c3d4e5"
)

// arnPattern renders a source ARN of the template (a string or an
// Fn::Join of strings and Refs) with the test account, region and API id.
func arnPattern(t *testing.T, v any, apiID string) string {
	t.Helper()
	switch v := v.(type) {
	case string:
		return v
	case map[string]any:
		if r, ok := v["Ref"].(string); ok {
			switch r {
			case "AWS::Partition":
				return testPartition
			case "AWS::Region":
				return testRegion
			case "AWS::AccountId":
				return testAccount
			case apiID:
				return testAPI
			}
		}
		if j, ok := v["Fn::Join"].([]any); ok && len(j) == 2 {
			sep, _ := j[0].(string)
			parts, _ := j[1].([]any)
			out := make([]string, len(parts))
			for i, p := range parts {
				out[i] = arnPattern(t, p, apiID)
			}
			return strings.Join(out, sep)
		}
	}
	t.Errorf("source ARN %v: not a string, a Join or a known Ref", v)
	return ""
}

// routeARNs are the ARNs API Gateway may name a route by when it invokes
// its function: arn:…:execute-api:<region>:<account>:<api>/<stage>/<method>/<path>,
// and <api>/<stage>/$default for the $default route. Both the concrete
// method and path of a request and the route key's own are listed, so
// that a permission passes only if it allows every form.
func routeARNs(key, _ string) []string {
	prefix := "arn:" + testPartition + ":execute-api:" + testRegion + ":" + testAccount + ":" + testAPI + "/$default/"
	if key == "$default" {
		return []string{prefix + "$default"}
	}
	method, path, _ := strings.Cut(key, " ")
	paths := []string{path}
	if strings.Contains(path, "{") {
		paths = append(paths, regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(path, "x/y"))
	}
	methods := []string{method}
	if method == "ANY" {
		methods = append(methods, "GET", "POST", "DELETE")
	}
	var out []string
	for _, m := range methods {
		for _, p := range paths {
			out = append(out, prefix+m+p)
		}
	}
	return out
}

// arnLike is IAM's ArnLike on one ARN: * matches any run of characters
// ("/" included), ? one character, everything else itself.
func arnLike(pattern, arn string) bool {
	var re strings.Builder
	re.WriteString("^")
	for _, r := range pattern {
		switch r {
		case '*':
			re.WriteString(".*")
		case '?':
			re.WriteString(".")
		default:
			re.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	re.WriteString("$")
	return regexp.MustCompile(re.String()).MatchString(arn)
}

func TestArnLike(t *testing.T) {
	const api = "arn:aws:execute-api:eu-west-3:123456789012:" + testAPI
	for _, tt := range []struct {
		pattern, arn string
		want         bool
	}{
		{api + "/*/*/*", api + "/$default/GET/api/auth", true},
		{api + "/*/*/*", api + "/$default/GET/api/auth/x/y", true},
		// The defect this check exists for: the $default route's ARN has
		// one segment fewer than the integration's permission.
		{api + "/*/*/*", api + "/$default/$default", false},
		{api + "/*/$default", api + "/$default/$default", true},
		{api + "/*/$default", api + "/$default/GET/$default", true},
		{api + "/*/$default", api + "/$default/GET/api", false},
		{api + "/?/x", api + "/a/x", true},
		{api + "/?/x", api + "/ab/x", false},
		{"arn:aws:execute-api:eu-west-3:123456789012:other/*", api + "/$default/$default", false},
		{api + ".+", api + "x", false}, // regexp characters are literal
	} {
		if got := arnLike(tt.pattern, tt.arn); got != tt.want {
			t.Errorf("arnLike(%q, %q) = %v, want %v", tt.pattern, tt.arn, got, tt.want)
		}
	}
}
