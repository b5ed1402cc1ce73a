package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/assertions"
	"github.com/aws/jsii-runtime-go"

	"github.com/prospectdata/svc/shared/console"
)

// consoleCopier is the logical id's start of CDK's BucketDeployment
// handler, the one function of the stack that is not the service's.
const consoleCopier = "CustomCDKBucketDeployment"

// TestConsoleStack: the console's files come from a private bucket read
// by CloudFront alone, a page path is answered with the document, /api/*
// goes to the HTTP API uncached with every method and the viewer's cookie,
// query and headers but Host, the pages carry the local server's policy,
// and the deployment puts the document rendered with the basemap.
func TestConsoleStack(t *testing.T) {
	const tiles = "https://tiles.example.org/{z}/{x}/{y}.png"
	s, _, tj := synth(t, map[string]any{ctxConsoleTiles: tiles})
	dists := ofType(tj, "AWS::CloudFront::Distribution")
	if len(dists) != 1 {
		t.Fatalf("%d distributions", len(dists))
	}
	var cfg map[string]any
	for _, d := range dists {
		cfg = props(d)["DistributionConfig"].(map[string]any)
	}
	def := cfg["DefaultCacheBehavior"].(map[string]any)
	if cfg["DefaultRootObject"] != "index.html" || def["ViewerProtocolPolicy"] != "redirect-to-https" ||
		len(def["FunctionAssociations"].([]any)) != 1 || def["ResponseHeadersPolicyId"] == nil {
		t.Errorf("default behaviour %v", def)
	}
	behaviors := cfg["CacheBehaviors"].([]any)
	if len(behaviors) != 1 {
		t.Fatalf("behaviours %v", behaviors)
	}
	apiB := behaviors[0].(map[string]any)
	if apiB["PathPattern"] != "/api/*" || apiB["ViewerProtocolPolicy"] != "https-only" ||
		len(apiB["AllowedMethods"].([]any)) != 7 || apiB["CachePolicyId"] != "4135ea2d-6df8-44a3-9df3-4b5a84be39ad" ||
		apiB["OriginRequestPolicyId"] != "b689b0a8-53d0-40ab-baf2-68738e2966ac" {
		t.Errorf("/api/* behaviour %v (want caching disabled, all methods, all viewer headers but Host)", apiB)
	}
	// The API origin is the HTTP API's host, HTTPS only.
	var apiOrigin map[string]any
	for _, o := range cfg["Origins"].([]any) {
		if o.(map[string]any)["Id"] == apiB["TargetOriginId"] {
			apiOrigin = o.(map[string]any)
		}
	}
	if apiOrigin == nil || !strings.Contains(mustJSON(t, apiOrigin["DomainName"]), logicalID(s, s.API)) ||
		apiOrigin["CustomOriginConfig"].(map[string]any)["OriginProtocolPolicy"] != "https-only" {
		t.Errorf("API origin %v", apiOrigin)
	}
	assert(t, "console bucket", func() {
		only(t, tj, logicalID(s, s.ConsoleBucket)).HasResourceProperties(jsii.String("AWS::S3::Bucket"), map[string]any{
			"PublicAccessBlockConfiguration": map[string]any{
				"BlockPublicAcls": true, "BlockPublicPolicy": true, "IgnorePublicAcls": true, "RestrictPublicBuckets": true,
			},
		})
	})
	if n := len(ofType(tj, "AWS::CloudFront::OriginAccessControl")); n != 1 {
		t.Errorf("%d origin access controls", n)
	}
	// The pages' policy is the local server's, with the basemap's host.
	_, csp, err := console.Page([]byte("x"), console.Options{Tiles: tiles})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ofType(tj, "AWS::CloudFront::ResponseHeadersPolicy") {
		sec := props(p)["ResponseHeadersPolicyConfig"].(map[string]any)["SecurityHeadersConfig"].(map[string]any)
		if got := sec["ContentSecurityPolicy"].(map[string]any)["ContentSecurityPolicy"]; got != csp || !strings.Contains(csp, "https://tiles.example.org") {
			t.Errorf("policy %v, want %q", got, csp)
		}
		if sec["FrameOptions"].(map[string]any)["FrameOption"] != "DENY" || sec["ReferrerPolicy"].(map[string]any)["ReferrerPolicy"] != "no-referrer" {
			t.Errorf("headers %v", sec)
		}
	}
	// The page rewrite leaves files alone and sends paths to the document.
	for _, f := range ofType(tj, "AWS::CloudFront::Function") {
		if code := props(f)["FunctionCode"].(string); !strings.Contains(code, "/index.html") {
			t.Errorf("function %s", code)
		}
	}
	dep := ofType(tj, "Custom::CDKBucketDeployment")
	for _, d := range dep {
		p := props(d)
		if len(p["SourceBucketNames"].([]any)) != 2 || p["Prune"] != true || p["DistributionPaths"] == nil {
			t.Errorf("deployment %v", p)
		}
	}
	assert(t, "outputs", func() {
		tmplOf(tj).HasOutput(jsii.String("ConsoleURL"), map[string]any{})
	})
}

// TestConsoleOff: without the console (LocalStack's recipe) the stack has
// no distribution and the API's endpoint is the base URL.
func TestConsoleOff(t *testing.T) {
	_, _, tj := synth(t, map[string]any{ctxConsole: "false"})
	if n := len(ofType(tj, "AWS::CloudFront::Distribution")) + len(ofType(tj, "Custom::CDKBucketDeployment")); n != 0 {
		t.Errorf("%d console resources", n)
	}
}

// TestConsoleTilesRefused: a basemap that is not a tile URL fails the
// synth with the knob's name.
func TestConsoleTilesRefused(t *testing.T) {
	ctx := map[string]any{ctxAssetDir: placeholderAssets(t), ctxConsoleTiles: "https://{s}.tile.example.org/{z}/{x}/{y}.png"}
	a := newApp(t, ctx)
	if _, err := NewStack(a, "Svc", nil); err == nil || !strings.Contains(err.Error(), ctxConsoleTiles) {
		t.Fatalf("err = %v", err)
	}
}

func tmplOf(tj map[string]any) assertions.Template { return assertions.Template_FromJSON(&tj, nil) }

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func newApp(t *testing.T, ctx map[string]any) awscdk.App {
	t.Helper()
	return awscdk.NewApp(&awscdk.AppProps{Context: &ctx, Outdir: jsii.String(t.TempDir())})
}
