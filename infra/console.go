package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfront"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfrontorigins"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3assets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3deployment"
	"github.com/aws/jsii-runtime-go"

	"github.com/prospectdata/svc/shared/console"
)

// consoleAsset is the directory `make build` copies the console's built
// files into, beside the functions' zips.
const consoleAsset = "console"

// pageRewrite is the CloudFront Function of the console's files: a path
// without a file extension is a page of the console (/jobs/…,
// /verify-email?token=…), answered with its one document, as the local
// server does (shared/console). The API's paths never reach it.
const pageRewrite = `function handler(event) {
  var r = event.request;
  var last = r.uri.substring(r.uri.lastIndexOf('/') + 1);
  if (last.indexOf('.') < 0) { r.uri = '/index.html'; }
  return r;
}`

// addConsole serves the web console from a private bucket through a
// CloudFront distribution that also sends /api/* to the HTTP API: one
// origin for the pages, the API and the session cookie (docs/console.md).
func (s *Stack) addConsole(stack awscdk.Stack, cfg settings) (awscloudfront.Distribution, error) {
	dir := filepath.Join(cfg.AssetDir, consoleAsset)
	index, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		return nil, fmt.Errorf("console: %w (run `make build`, or set -c %s=<dir of the build>)", err, ctxAssetDir)
	}
	page, csp, err := console.Page(index, console.Options{Tiles: cfg.ConsoleTiles})
	if err != nil {
		return nil, fmt.Errorf("-c %s: %w", ctxConsoleTiles, err)
	}
	s.ConsoleBucket = awss3.NewBucket(stack, jsii.String("ConsoleBucket"), &awss3.BucketProps{
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:        jsii.Bool(true),
		// The files are the build's: a new deploy puts them back.
		RemovalPolicy:     awscdk.RemovalPolicy_DESTROY,
		AutoDeleteObjects: jsii.Bool(false),
	})
	headers := awscloudfront.NewResponseHeadersPolicy(stack, jsii.String("ConsoleHeaders"), &awscloudfront.ResponseHeadersPolicyProps{
		Comment: jsii.String("The console's pages: the same policy and headers as the local server's"),
		SecurityHeadersBehavior: &awscloudfront.ResponseSecurityHeadersBehavior{
			ContentSecurityPolicy: &awscloudfront.ResponseHeadersContentSecurityPolicy{ContentSecurityPolicy: jsii.String(csp), Override: jsii.Bool(true)},
			ContentTypeOptions:    &awscloudfront.ResponseHeadersContentTypeOptions{Override: jsii.Bool(true)},
			FrameOptions:          &awscloudfront.ResponseHeadersFrameOptions{FrameOption: awscloudfront.HeadersFrameOption_DENY, Override: jsii.Bool(true)},
			ReferrerPolicy:        &awscloudfront.ResponseHeadersReferrerPolicy{ReferrerPolicy: awscloudfront.HeadersReferrerPolicy_NO_REFERRER, Override: jsii.Bool(true)},
			StrictTransportSecurity: &awscloudfront.ResponseHeadersStrictTransportSecurity{
				AccessControlMaxAge: awscdk.Duration_Days(jsii.Number(365)), IncludeSubdomains: jsii.Bool(false), Override: jsii.Bool(true),
			},
		},
	})
	rewrite := awscloudfront.NewFunction(stack, jsii.String("ConsolePages"), &awscloudfront.FunctionProps{
		Code:    awscloudfront.FunctionCode_FromInline(jsii.String(pageRewrite)),
		Runtime: awscloudfront.FunctionRuntime_JS_2_0(),
		Comment: jsii.String("A console path without a file extension is its page"),
	})
	// The API's host: its endpoint is https://<id>.execute-api.<region>.amazonaws.com.
	apiHost := awscdk.Fn_Select(jsii.Number(2), awscdk.Fn_Split(jsii.String("/"), s.API.ApiEndpoint(), nil))
	dist := awscloudfront.NewDistribution(stack, jsii.String("Console"), &awscloudfront.DistributionProps{
		Comment:           jsii.String("The web console and the API under one origin"),
		DefaultRootObject: jsii.String("index.html"),
		HttpVersion:       awscloudfront.HttpVersion_HTTP2_AND_3,
		DefaultBehavior: &awscloudfront.BehaviorOptions{
			Origin:                awscloudfrontorigins.S3BucketOrigin_WithOriginAccessControl(s.ConsoleBucket, nil),
			ViewerProtocolPolicy:  awscloudfront.ViewerProtocolPolicy_REDIRECT_TO_HTTPS,
			AllowedMethods:        awscloudfront.AllowedMethods_ALLOW_GET_HEAD(),
			CachePolicy:           awscloudfront.CachePolicy_CACHING_OPTIMIZED(),
			Compress:              jsii.Bool(true),
			ResponseHeadersPolicy: headers,
			FunctionAssociations: &[]*awscloudfront.FunctionAssociation{{
				Function: rewrite, EventType: awscloudfront.FunctionEventType_VIEWER_REQUEST,
			}},
		},
		AdditionalBehaviors: &map[string]*awscloudfront.BehaviorOptions{
			// Everything the API answers is the caller's own: never
			// cached, every method, the cookie, query and headers passed
			// on (but Host, which API Gateway routes on).
			"/api/*": {
				Origin: awscloudfrontorigins.NewHttpOrigin(apiHost, &awscloudfrontorigins.HttpOriginProps{
					ProtocolPolicy: awscloudfront.OriginProtocolPolicy_HTTPS_ONLY,
					// API Gateway's integration limit: a CloudFront origin
					// waits 30 s by default, the API 30 s at most.
					ReadTimeout: awscdk.Duration_Seconds(jsii.Number(30)),
				}),
				ViewerProtocolPolicy: awscloudfront.ViewerProtocolPolicy_HTTPS_ONLY,
				AllowedMethods:       awscloudfront.AllowedMethods_ALLOW_ALL(),
				CachePolicy:          awscloudfront.CachePolicy_CACHING_DISABLED(),
				OriginRequestPolicy:  awscloudfront.OriginRequestPolicy_ALL_VIEWER_EXCEPT_HOST_HEADER(),
				Compress:             jsii.Bool(true),
			},
		},
	})
	// The files of the build, the document rendered with the stack's
	// basemap; each deploy replaces them and clears the edge caches.
	awss3deployment.NewBucketDeployment(stack, jsii.String("ConsoleFiles"), &awss3deployment.BucketDeploymentProps{
		DestinationBucket: s.ConsoleBucket,
		Sources: &[]awss3deployment.ISource{
			awss3deployment.Source_Asset(jsii.String(dir), &awss3assets.AssetOptions{
				Exclude: jsii.Strings("index.html", "README.md"),
			}),
			awss3deployment.Source_Data(jsii.String("index.html"), jsii.String(string(page)), nil),
		},
		Prune:             jsii.Bool(true),
		Distribution:      dist,
		DistributionPaths: jsii.Strings("/*"),
	})
	awscdk.NewCfnOutput(stack, jsii.String("ConsoleURL"), &awscdk.CfnOutputProps{
		Description: jsii.String("The web console, and the API under /api/"),
		Value:       jsii.String("https://" + *dist.DistributionDomainName()),
	})
	s.Console = dist
	return dist, nil
}
