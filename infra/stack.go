package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-cdk-go/awscdk/v2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsapigatewayv2integrations"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudfront"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatch"
	"github.com/aws/aws-cdk-go/awscdk/v2/awscloudwatchactions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsdynamodb"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsevents"
	"github.com/aws/aws-cdk-go/awscdk/v2/awseventstargets"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsiam"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambda"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslambdaeventsources"
	"github.com/aws/aws-cdk-go/awscdk/v2/awslogs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awss3"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssecretsmanager"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssns"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssnssubscriptions"
	"github.com/aws/aws-cdk-go/awscdk/v2/awssqs"
	"github.com/aws/aws-cdk-go/awscdk/v2/awsstepfunctions"
	"github.com/aws/constructs-go/constructs/v10"
	"github.com/aws/jsii-runtime-go"

	"github.com/prospectdata/svc/shared/api"
	"github.com/prospectdata/svc/shared/app"
	"github.com/prospectdata/svc/shared/app/onaws"
	"github.com/prospectdata/svc/shared/queue"
	"github.com/prospectdata/svc/shared/store"
	"github.com/prospectdata/svc/statemachines"
)

// StackProps are the props of the service stack. Deploy-time settings come
// from CDK context (settings.go), not from here, so that `cdk -c` and the
// tests set them the same way.
type StackProps struct {
	awscdk.StackProps
}

// Stack is the service stack, with handles on what it made so that tests
// can find the logical ids of the resources they assert on.
type Stack struct {
	awscdk.Stack
	Tables       map[string]awsdynamodb.Table // by schema name
	Queues       map[string]awssqs.Queue      // by queue name
	Functions    map[string]awslambda.Function
	Integrations map[string]awsapigatewayv2integrations.HttpLambdaIntegration
	Bucket       awss3.Bucket
	API          awsapigatewayv2.HttpApi
	// Console is the web console's distribution: its files from
	// ConsoleBucket, /api/* from the HTTP API.
	Console       awscloudfront.Distribution
	ConsoleBucket awss3.Bucket
	SessionSecret awssecretsmanager.Secret
	// SourceSecrets holds the data-source modules' keys and seed
	// mailboxes (dataSourceSecretKeys), filled by the operator.
	SourceSecrets awssecretsmanager.Secret
	// PlacesSecret holds the Google Places key (placesKeyField), filled
	// by the operator; nil under the sim map provider.
	PlacesSecret awssecretsmanager.Secret
	// AlarmTopic is the SNS topic every alarm publishes to.
	AlarmTopic awssns.Topic
	// Pipelines is the generic pipeline state machine
	// (statemachines/pipeline.asl.json).
	Pipelines awsstepfunctions.StateMachine

	cfg      settings
	chromium awslambda.ILayerVersion // the Chromium pack's layer, once made
	// pipelinesARN is the state machine's ARN built from its fixed name:
	// the functions it invokes name it too, and a reference to the
	// resource would make a dependency cycle (machine → function →
	// function's policy → machine).
	pipelinesARN *string
}

// Function settings shared by every route group. API Gateway gives up on an
// integration after 29 s; 15 s leaves a slow request room for one retry of
// a DynamoDB call while failing well before the gateway does.
const (
	functionMemoryMB = 256
	functionTimeoutS = 15
	// Secrets Manager generates this many alphanumeric characters; the
	// service needs at least 32 (shared/config.SessionKey).
	sessionSecretLength = 64
)

// memoryMB is a group's Lambda memory: its own, or the shared default.
func memoryMB(g api.Group) int {
	if g.MemoryMB > 0 {
		return g.MemoryMB
	}
	return functionMemoryMB
}

// NewStack builds the service's AWS runtime from the service's own tables
// (api.Groups, app.Schemas, app.Queues). It makes no lookup (no account,
// region or context provider), so synth works offline.
func NewStack(scope constructs.Construct, id string, props *StackProps) (*Stack, error) {
	var sp awscdk.StackProps
	if props != nil {
		sp = props.StackProps
	}
	stack := awscdk.NewStack(scope, &id, &sp)
	cfg, err := readSettings(stack.Node())
	if err != nil {
		return nil, err
	}
	sv := serviceSpec()
	if err := sv.check(); err != nil {
		return nil, fmt.Errorf("service tables: %w", err)
	}
	// Check the artifacts here: the CDK's own error for a missing asset is a
	// JavaScript stack trace that does not say to run make build.
	for _, g := range sv.Groups {
		if _, err := os.Stat(assetPath(cfg, g.Name)); err != nil {
			return nil, fmt.Errorf("function %s: %w (run `make build`, or set -c %s=<dir of the zips>)", g.Name, err, ctxAssetDir)
		}
	}

	s := &Stack{
		Stack:        stack,
		Tables:       map[string]awsdynamodb.Table{},
		Queues:       map[string]awssqs.Queue{},
		Functions:    map[string]awslambda.Function{},
		Integrations: map[string]awsapigatewayv2integrations.HttpLambdaIntegration{},
		cfg:          cfg,
	}
	// First: every alarm below publishes to it.
	s.AlarmTopic = awssns.NewTopic(stack, jsii.String("AlarmTopic"), &awssns.TopicProps{
		DisplayName: jsii.String(id + " alarms"),
	})
	if cfg.AlarmEmail != "" {
		// SNS mails a confirmation link first: nothing is delivered
		// until the address confirms (docs/aws.md).
		s.AlarmTopic.AddSubscription(awssnssubscriptions.NewEmailSubscription(jsii.String(cfg.AlarmEmail), nil))
	}
	for _, sc := range sv.Schemas {
		s.Tables[sc.Name] = newTable(stack, sc)
	}
	s.addQueues(sv)
	s.Bucket = newBucket(stack)
	s.SessionSecret = awssecretsmanager.NewSecret(stack, jsii.String("SessionSecret"), &awssecretsmanager.SecretProps{
		Description: jsii.String("Signs the service's session cookies (SVC_SESSION_SECRET)."),
		GenerateSecretString: &awssecretsmanager.SecretStringGenerator{
			PasswordLength:     jsii.Number(sessionSecretLength),
			ExcludePunctuation: jsii.Bool(true),
			IncludeSpace:       jsii.Bool(false),
		},
	})
	// Created with empty values: the operator puts the real ones in the
	// secret after the first deploy (docs/aws.md), and the next deploy
	// hands them to the workers. No key is ever in code.
	placeholders := map[string]awscdk.SecretValue{}
	for _, k := range dataSourceSecretKeys {
		placeholders[k.field] = awscdk.SecretValue_UnsafePlainText(jsii.String(""))
	}
	s.SourceSecrets = awssecretsmanager.NewSecret(stack, jsii.String("DataSourceSecrets"), &awssecretsmanager.SecretProps{
		Description: jsii.String("Keys and seed mailboxes of the data-source modules (PageSpeed key, registers key, " +
			"delivery_check seeds as JSON); fill after the first deploy."),
		SecretObjectValue: &placeholders,
	})
	if cfg.MapProvider == "google" {
		// Like DataSourceSecrets: an empty placeholder the operator fills
		// (docs/aws.md, "Deploy with Google Places"). The template never
		// changes it, so no deploy overwrites the key.
		s.PlacesSecret = awssecretsmanager.NewSecret(stack, jsii.String("GooglePlacesSecret"), &awssecretsmanager.SecretProps{
			Description: jsii.String("The Google Places API (New) key of the map provider (field " + placesKeyField +
				"); fill after the first deploy."),
			SecretObjectValue: &map[string]awscdk.SecretValue{placesKeyField: awscdk.SecretValue_UnsafePlainText(jsii.String(""))},
		})
		awscdk.NewCfnOutput(stack, jsii.String("GooglePlacesSecretArn"), &awscdk.CfnOutputProps{
			Description: jsii.String("Secret to put the Google Places key in (field " + placesKeyField + ")"),
			Value:       s.PlacesSecret.SecretArn(),
		})
	}
	awscdk.NewCfnOutput(stack, jsii.String("DataSourceSecretsArn"), &awscdk.CfnOutputProps{
		Description: jsii.String("Secret of the data-source modules' keys and seed mailboxes"),
		Value:       s.SourceSecrets.SecretArn(),
	})
	// CORS stays off: the pages and the API share the gateway's origin, and
	// API-key callers are servers. The default stage auto-deploys.
	s.API = awsapigatewayv2.NewHttpApi(stack, jsii.String("HttpApi"), &awsapigatewayv2.HttpApiProps{
		ApiName:            jsii.String(id),
		Description:        jsii.String("The service's HTTP API: one Lambda per route group (shared/api.Groups)."),
		CreateDefaultStage: jsii.Bool(true),
	})
	s.alarm("ApiServerErrorsAlarm", "The HTTP API answered 5xx (a function failed, timed out, or was throttled).",
		s.API.MetricServerError(alarmPeriod("Sum")), 1)
	// The console and the API share one origin, the distribution's: mailed
	// links open the console there, and the session cookie is its.
	baseURL := s.API.ApiEndpoint()
	if cfg.Console {
		dist, err := s.addConsole(stack, cfg)
		if err != nil {
			return nil, err
		}
		baseURL = jsii.String("https://" + *dist.DistributionDomainName())
	}
	if cfg.BaseURL != "" {
		baseURL = jsii.String(cfg.BaseURL)
	}
	sesIdentity := cfg.SESIdentityARN
	if sesIdentity == "" {
		sesIdentity = *stack.FormatArn(&awscdk.ArnComponents{
			Service:      jsii.String("ses"),
			Resource:     jsii.String("identity"),
			ResourceName: jsii.String(cfg.MailDomain),
			ArnFormat:    awscdk.ArnFormat_SLASH_RESOURCE_NAME,
		})
	}

	s.pipelinesARN = stack.FormatArn(&awscdk.ArnComponents{
		Service:      jsii.String("states"),
		Resource:     jsii.String("stateMachine"),
		ResourceName: jsii.String(pipelinesName(*stack.StackName())),
		ArnFormat:    awscdk.ArnFormat_COLON_RESOURCE_NAME,
	})
	for _, g := range sv.Groups {
		if err := s.addGroup(g, cfg, baseURL, sesIdentity); err != nil {
			return nil, err
		}
	}
	for _, w := range sv.Workers {
		if err := s.addWorker(w, cfg, baseURL); err != nil {
			return nil, err
		}
	}
	if err := s.addPipelines(*stack.StackName()); err != nil {
		return nil, err
	}
	for _, sc := range sv.Schedules {
		s.addSchedule(sc)
	}

	awscdk.NewCfnOutput(stack, jsii.String("ApiUrl"), &awscdk.CfnOutputProps{
		Description: jsii.String("Endpoint of the HTTP API (default stage)"),
		Value:       s.API.ApiEndpoint(),
	})
	awscdk.NewCfnOutput(stack, jsii.String("FilesBucketName"), &awscdk.CfnOutputProps{
		Description: jsii.String("Bucket of the file store (job outputs, exports, assets)"),
		Value:       s.Bucket.BucketName(),
	})
	awscdk.NewCfnOutput(stack, jsii.String("AlarmTopicArn"), &awscdk.CfnOutputProps{
		Description: jsii.String("SNS topic of the alarms (subscribe more endpoints to it)"),
		Value:       s.AlarmTopic.TopicArn(),
	})
	return s, nil
}

// fnSpec is what a function of the stack needs: its name, description,
// size, and what it touches.
type fnSpec struct {
	name, description  string
	memoryMB, timeoutS int
	tables, sendsTo    []string
	files              bool
	// browser: x86_64 with the Chromium pack as a layer (app.Worker).
	browser bool
	// sources: the data-source modules' secrets.
	sources bool
}

// usesProvider tells whether a function holding these tables gets the map
// provider's settings (SVC_MAP_PROVIDER, its key, its limits): what holds
// the jobs table creates, runs or continues jobs, whose source names the
// provider, and runs the engine whose tasks call it. shared/config refuses
// google without a key, so each of them reads the key's secret.
func usesProvider(tables []string) bool { return slices.Contains(tables, "jobs") }

// placesKeyField is the field of GooglePlacesSecret holding the key.
const placesKeyField = "google_places_key"

// Variables of the provider's settings (shared/config and the limiter).
const (
	envMapProvider  = "SVC_MAP_PROVIDER"
	envMaxInFlight  = "SVC_PROVIDER_MAX_IN_FLIGHT"
	envMaxPerSecond = "SVC_PROVIDER_MAX_PER_SECOND"
	envPlacesKey    = "SVC_GOOGLE_PLACES_KEY"
	envSessionKey   = "SVC_SESSION_SECRET"
)

// dataSourceSecretKeys are the fields of DataSourceSecrets and the
// variables they become in the workers that run the data-source modules.
var dataSourceSecretKeys = []struct{ field, env string }{
	{"pagespeed_key", "SVC_PAGESPEED_KEY"},
	{"registers_key", "SVC_REGISTERS_KEY"},
	{"delivery_seeds", "SVC_DELIVERY_SEEDS"},
	{"phone_lookup_key", "SVC_PHONE_LOOKUP_KEY"},
	{"phone_lookup_secret", "SVC_PHONE_LOOKUP_SECRET"},
}

// chromiumLayerAsset is the zip of the serverless Chromium pack (make
// build), unpacked by Lambda under /opt/chromium.
const chromiumLayerAsset = "chromium-layer"

// chromiumPackDir is where the layer puts the pack in the function.
const chromiumPackDir = "/opt/chromium"

// secrets are the secrets a function reads at init (onaws.SecretsEnv) and
// their ARNs: the session key for all, the data-source keys for those
// running the data sources, the Places key for those using the provider
// when it is google.
func (s *Stack) secrets(f fnSpec) ([]onaws.SecretRef, []string) {
	refs := []onaws.SecretRef{{ARN: *s.SessionSecret.SecretArn(), Var: envSessionKey}}
	if f.sources {
		fields := map[string]string{}
		for _, k := range dataSourceSecretKeys {
			fields[k.field] = k.env
		}
		refs = append(refs, onaws.SecretRef{ARN: *s.SourceSecrets.SecretArn(), Fields: fields})
	}
	if s.PlacesSecret != nil && usesProvider(f.tables) {
		refs = append(refs, onaws.SecretRef{ARN: *s.PlacesSecret.SecretArn(), Fields: map[string]string{placesKeyField: envPlacesKey}})
	}
	arns := make([]string, len(refs))
	for i, r := range refs {
		arns[i] = r.ARN
	}
	return refs, arns
}

// addFunction creates a Lambda with its environment, log group, least-
// privilege grants (its tables, send-only on its queues, the bucket when
// it uses files, read on its secrets) and its errors and throttles alarms.
func (s *Stack) addFunction(f fnSpec, cfg settings, baseURL *string) (awslambda.Function, error) {
	// Secret ARNs only: the function reads the values at init, so no key
	// is in its configuration or in the template (docs/aws.md,
	// "Secrets"). The ARNs are tokens inside the JSON; CloudFormation
	// joins them in.
	refs, arns := s.secrets(f)
	list, err := json.Marshal(refs)
	if err != nil {
		return nil, fmt.Errorf("function %s: secrets: %w", f.name, err)
	}
	env := map[string]*string{
		"SVC_BASE_URL":         baseURL,
		"SVC_MAIL_FROM":        jsii.String(cfg.MailFrom),
		"SVC_INVITATION_CODES": jsii.String(cfg.InvitationCodes),
		"SVC_ADMIN_EMAILS":     jsii.String(cfg.AdminEmails),
		onaws.SecretsEnv:       jsii.String(string(list)),
		"SVC_DATA_SOURCES":     jsii.String(cfg.DataSources),
		// Lambda blocks outbound port 25: verify_emails stops at DNS
		// (docs/verify.md).
		"SVC_SMTP_PROBE": jsii.String("off"),
	}
	if usesProvider(f.tables) {
		env[envMapProvider] = jsii.String(cfg.MapProvider)
		env[envMaxInFlight] = jsii.String(fmt.Sprint(cfg.ProviderMaxInFlight))
		env[envMaxPerSecond] = jsii.String(fmt.Sprint(cfg.ProviderMaxPerSecond))
	}
	for _, t := range f.tables {
		env[tableEnv(t)] = s.Tables[t].TableName()
	}
	for _, q := range f.sendsTo {
		env[queueEnv(q)] = s.Queues[q].QueueUrl()
	}
	if f.files {
		env["SVC_BUCKET"] = s.Bucket.BucketName()
		if cfg.S3PathStyle {
			env["SVC_S3_PATH_STYLE"] = jsii.String("1")
		}
	}
	if slices.Contains(f.tables, "jobs") {
		env[onaws.StateMachineEnv] = s.pipelinesARN
	}
	arch := awslambda.Architecture_ARM_64()
	var layers *[]awslambda.ILayerVersion
	var tmp awscdk.Size
	if f.browser {
		// The pack's headless shell is built for x86_64 Amazon Linux;
		// unpacked it takes about 250 MB of /tmp.
		arch = awslambda.Architecture_X86_64()
		env["SVC_CHROMIUM_PACK"] = jsii.String(chromiumPackDir)
		layers = &[]awslambda.ILayerVersion{s.chromiumLayer(cfg)}
		tmp = awscdk.Size_Mebibytes(jsii.Number(1024))
	}
	logs := awslogs.NewLogGroup(s.Stack, jsii.String(pascal(f.name)+"Logs"), &awslogs.LogGroupProps{
		Retention: awslogs.RetentionDays_ONE_MONTH,
	})
	fn := awslambda.NewFunction(s.Stack, jsii.String(pascal(f.name)+"Function"), &awslambda.FunctionProps{
		Description:          jsii.String(f.description),
		Runtime:              awslambda.Runtime_PROVIDED_AL2023(),
		Architecture:         arch,
		Layers:               layers,
		EphemeralStorageSize: tmp,
		Handler:              jsii.String("bootstrap"),
		Code:                 awslambda.Code_FromAsset(jsii.String(assetPath(cfg, f.name)), nil),
		MemorySize:           jsii.Number(f.memoryMB),
		Timeout:              awscdk.Duration_Seconds(jsii.Number(f.timeoutS)),
		Environment:          &env,
		// An explicit log group rather than logRetention, which would add
		// a custom-resource Lambda to the stack just to set retention.
		LogGroup: logs,
	})
	s.Functions[f.name] = fn
	for _, t := range f.tables {
		s.Tables[t].GrantReadWriteData(fn)
	}
	for _, q := range f.sendsTo {
		s.Queues[q].GrantSendMessages(fn)
	}
	if f.files {
		s.Bucket.GrantReadWrite(fn, nil)
	}
	// GetSecretValue only, on exactly its secrets (Secret.GrantRead would
	// add DescribeSecret, which the init read does not call).
	fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("secretsmanager:GetSecretValue"),
		Resources: jsii.Strings(arns...),
	}))
	// What creates or ends jobs moves pipelines on: it starts a
	// pipeline's execution and hands a waiting one its task token.
	if slices.Contains(f.tables, "jobs") {
		fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings("states:StartExecution", "states:SendTaskSuccess"),
			Resources: jsii.Strings(*s.pipelinesARN),
		}))
	}
	s.alarm(pascal(f.name)+"ErrorsAlarm", "Function "+f.name+" failed (an invocation error: panic, timeout, crash at start).",
		fn.MetricErrors(alarmPeriod("Sum")), 1)
	s.alarm(pascal(f.name)+"ThrottlesAlarm", "Function "+f.name+" was throttled (the account's or its event source's concurrency is exhausted).",
		fn.MetricThrottles(alarmPeriod("Sum")), 1)
	return fn, nil
}

// addWorker creates the Lambda of a worker: its queue as event source,
// one message per invocation, failures reported per message so that SQS
// redelivers them and, past the queue's receive limit, moves them to the
// dead-letter queue (whose alarm watches it); and its table's stream as
// event source, new items only, failures reported per record so that a
// batch resumes from its first failed record, and a batch still failing
// after its retries noted in the stream's dead-letter queue. The queue's
// event source has a maximum concurrency (tasksConcurrency): the workers
// cannot take the account's concurrency from the API functions.
func (s *Stack) addWorker(w app.Worker, cfg settings, baseURL *string) error {
	from := []string{}
	if w.Queue != "" {
		from = append(from, "queue "+w.Queue)
	}
	if w.Stream != "" {
		from = append(from, "the stream of table "+w.Stream)
	}
	if w.StateMachine != "" {
		from = append(from, "the tasks of state machine "+w.StateMachine)
	}
	if w.Every > 0 {
		from = append(from, fmt.Sprintf("a scheduled rule every %d min", int(w.Every/time.Minute)))
	}
	fn, err := s.addFunction(fnSpec{
		name: w.Name, description: "Worker " + w.Name + " of " + strings.Join(from, " and ") + " (functions/" + w.Name + ")",
		memoryMB: w.MemoryMB, timeoutS: w.TimeoutS, tables: w.Tables, sendsTo: w.SendsTo, files: w.Files,
		browser: w.Browser, sources: w.Sources,
	}, cfg, baseURL)
	if err != nil {
		return err
	}
	if w.Queue != "" {
		fn.AddEventSource(awslambdaeventsources.NewSqsEventSource(s.Queues[w.Queue], &awslambdaeventsources.SqsEventSourceProps{
			BatchSize:               jsii.Number(1),
			ReportBatchItemFailures: jsii.Bool(true),
			MaxConcurrency:          jsii.Number(queueConcurrency(w.Queue, cfg)),
		}))
	}
	if w.Every > 0 {
		// Lambda retries a failed asynchronous invocation twice by
		// default, whatever the rule's own retry policy: none here, and
		// an event older than one period is dropped, since the next tick
		// does the same work.
		fn.ConfigureAsyncInvoke(&awslambda.EventInvokeConfigOptions{
			RetryAttempts: jsii.Number(0),
			MaxEventAge:   awscdk.Duration_Seconds(jsii.Number(tickMaxEventAge(w.Every).Seconds())),
		})
		minutes := int(w.Every / time.Minute)
		awsevents.NewRule(s.Stack, jsii.String(pascal(w.Name)+"Rule"), &awsevents.RuleProps{
			Description: jsii.String(fmt.Sprintf("Invokes %s every %d min (shared/app.Workers)", w.Name, minutes)),
			Schedule:    awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(minutes))),
			Targets: &[]awsevents.IRuleTarget{awseventstargets.NewLambdaFunction(fn, &awseventstargets.LambdaFunctionProps{
				// A tick that fails is not retried: the next one, a
				// minute later, does the same work.
				RetryAttempts: jsii.Number(0),
			})},
		})
	}
	if w.Stream != "" {
		props := &awslambdaeventsources.DynamoEventSourceProps{
			StartingPosition:        awslambda.StartingPosition_TRIM_HORIZON,
			BatchSize:               jsii.Number(100),
			ReportBatchItemFailures: jsii.Bool(true),
			BisectBatchOnError:      jsii.Bool(true),
			RetryAttempts:           jsii.Number(10),
			Filters: &[]*map[string]interface{}{
				awslambda.FilterCriteria_Filter(&map[string]interface{}{"eventName": awslambda.FilterRule_IsEqual(jsii.String("INSERT"))}),
			},
		}
		// Apart from deliveries-dlq: a note there is a stream batch the
		// fan-out failed, not a delivery that failed.
		props.OnFailure = awslambdaeventsources.NewSqsDlq(s.Queues[app.QueueStreamDLQ])
		fn.AddEventSource(awslambdaeventsources.NewDynamoEventSource(s.Tables[w.Stream], props))
		// Lambda publishes IteratorAge for stream event sources only, so
		// the function's metric is its stream mapping's.
		s.alarm(pascal(w.Name)+"IteratorAgeAlarm", "The stream of table "+w.Stream+" waits in "+w.Name+
			" (its oldest unprocessed record is over "+minutes(streamAgeAlarm)+" old): events reach webhooks late.",
			fn.Metric(jsii.String("IteratorAge"), alarmPeriod("Maximum")), float64(streamAgeAlarm.Milliseconds()))
	}
	return nil
}

// Ages past which the age alarms fire: a work message waiting an hour
// means the workers fall behind (or keep failing it); a stream record five
// minutes old means the webhook fan-out does.
const (
	queueAgeAlarm  = time.Hour
	streamAgeAlarm = 5 * time.Minute
)

// minutes writes d in whole minutes, for alarm descriptions.
func minutes(d time.Duration) string { return fmt.Sprintf("%d minutes", int(d/time.Minute)) }

// queueConcurrency is the maximum concurrency of a queue's event source.
// worker-tasks runs the scrape's provider requests (one tile per
// invocation): an invocation past providerMaxInFlight would only wait for
// the shared limiter, so it runs at most that many. The other workers take
// workerMaxConcurrency. SQS event sources accept 2 to 1,000.
func queueConcurrency(queue string, cfg settings) int {
	if queue == app.QueueTasks {
		return max(minConcurrency, cfg.ProviderMaxInFlight)
	}
	return cfg.WorkerMaxConcurrency
}

// tickMaxEventAge is how long Lambda keeps a scheduled worker's event:
// one period, within the 60 s to 6 h Lambda accepts.
func tickMaxEventAge(every time.Duration) time.Duration {
	return min(max(every, time.Minute), 6*time.Hour)
}

// alarm creates an alarm that fires when metric reaches threshold in one
// 5-minute period and publishes to the alarm topic; missing data is not
// breaching.
func (s *Stack) alarm(id, description string, metric awscloudwatch.IMetric, threshold float64) {
	a := awscloudwatch.NewAlarm(s.Stack, jsii.String(id), &awscloudwatch.AlarmProps{
		AlarmDescription:   jsii.String(description),
		Metric:             metric,
		Threshold:          jsii.Number(threshold),
		EvaluationPeriods:  jsii.Number(1),
		ComparisonOperator: awscloudwatch.ComparisonOperator_GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
		TreatMissingData:   awscloudwatch.TreatMissingData_NOT_BREACHING,
	})
	a.AddAlarmAction(awscloudwatchactions.NewSnsAction(s.AlarmTopic))
}

// alarmPeriod is the 5-minute period of the alarms' metrics.
func alarmPeriod(statistic string) *awscloudwatch.MetricOptions {
	return &awscloudwatch.MetricOptions{Period: awscdk.Duration_Minutes(jsii.Number(5)), Statistic: jsii.String(statistic)}
}

// pipelinesName is the pipeline state machine's name in stack id.
func pipelinesName(stackID string) string { return stackID + "-pipelines" }

// pipelinesTimeout bounds one execution: far beyond MaxRounds Awaits of
// 15 minutes (the executions renew themselves before), under Standard's
// one year. It is the definition's top-level TimeoutSeconds: the CDK's
// timeout property does not reach a definition given as a string.
const pipelinesTimeout = 90 * 24 * time.Hour

// checkTimeout fails unless asl's top-level TimeoutSeconds is want.
func checkTimeout(asl []byte, want time.Duration) error {
	var def struct {
		TimeoutSeconds *float64
	}
	if err := json.Unmarshal(asl, &def); err != nil {
		return fmt.Errorf("statemachines/pipeline.asl.json: %w", err)
	}
	if def.TimeoutSeconds == nil || *def.TimeoutSeconds != want.Seconds() {
		return fmt.Errorf("statemachines/pipeline.asl.json: TimeoutSeconds %v, want %v (%v)", def.TimeoutSeconds, want.Seconds(), want)
	}
	return nil
}

// addPipelines creates the generic pipeline state machine (Standard: its
// executions wait for days on a paused pipeline) over the pipeline-step
// Lambda, allowed to invoke it and to start its own next execution
// (Renew).
func (s *Stack) addPipelines(stackID string) error {
	if err := checkTimeout(statemachines.Pipeline, pipelinesTimeout); err != nil {
		return err
	}
	step := s.Functions["pipeline-step"]
	role := awsiam.NewRole(s.Stack, jsii.String("PipelinesRole"), &awsiam.RoleProps{
		AssumedBy:   awsiam.NewServicePrincipal(jsii.String("states.amazonaws.com"), nil),
		Description: jsii.String("Runs the pipeline state machine: invokes pipeline-step, starts the machine's next execution."),
	})
	step.GrantInvoke(role)
	role.AddToPolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
		Actions:   jsii.Strings("states:StartExecution"),
		Resources: jsii.Strings(*s.pipelinesARN),
	}))
	s.Pipelines = awsstepfunctions.NewStateMachine(s.Stack, jsii.String("Pipelines"), &awsstepfunctions.StateMachineProps{
		StateMachineName: jsii.String(pipelinesName(stackID)),
		StateMachineType: awsstepfunctions.StateMachineType_STANDARD,
		DefinitionBody:   awsstepfunctions.DefinitionBody_FromString(jsii.String(string(statemachines.Pipeline))),
		DefinitionSubstitutions: &map[string]*string{
			statemachines.PipelineStepFunction: step.FunctionArn(),
		},
		Role:    role,
		Comment: jsii.String("Drives each pipeline through the pipeline-step Lambda (statemachines/pipeline.asl.json)."),
	})
	s.alarm("PipelinesFailedAlarm", "A pipeline execution failed: its step failed past every retry and the pipeline was marked failed.",
		s.Pipelines.MetricFailed(alarmPeriod("Sum")), 1)
	awscdk.NewCfnOutput(s.Stack, jsii.String("PipelinesStateMachine"), &awscdk.CfnOutputProps{
		Description: jsii.String("ARN of the pipeline state machine"),
		Value:       s.Pipelines.StateMachineArn(),
	})
	return nil
}

// addSchedule creates the EventBridge rule that sends a schedule's
// message to its queue at its rate (the target adds the queue policy that
// lets EventBridge send).
func (s *Stack) addSchedule(sc app.Schedule) {
	minutes := int(sc.Every / time.Minute)
	// FromObject, not FromText: a text input reaches SQS as a quoted JSON
	// string; an object input is the body itself.
	var body map[string]any
	_ = json.Unmarshal([]byte(sc.Body), &body) // check() has ruled out a body that is not an object
	awsevents.NewRule(s.Stack, jsii.String(pascal(sc.Name)+"Schedule"), &awsevents.RuleProps{
		Description: jsii.String(fmt.Sprintf("Sends the %s message to queue %s every %d min (shared/app.Schedules)", sc.Name, sc.Queue, minutes)),
		Schedule:    awsevents.Schedule_Rate(awscdk.Duration_Minutes(jsii.Number(minutes))),
		Targets: &[]awsevents.IRuleTarget{awseventstargets.NewSqsQueue(s.Queues[sc.Queue], &awseventstargets.SqsQueueProps{
			Message: awsevents.RuleTargetInput_FromObject(body),
		})},
	})
}

// addGroup creates the Lambda of a route group with its log group, grants,
// errors alarm, integration and routes.
func (s *Stack) addGroup(g api.Group, cfg settings, baseURL *string, sesIdentity string) error {
	fn, err := s.addFunction(fnSpec{
		name: g.Name, description: "Route group " + g.Name + " (functions/" + g.Name + ")",
		memoryMB: memoryMB(g), timeoutS: functionTimeoutS, tables: g.Tables, sendsTo: g.SendsTo, files: g.Files,
		sources: g.DataSources,
	}, cfg, baseURL)
	if err != nil {
		return err
	}
	if g.SendsMail {
		// shared/mail/ses sends raw content with SES v2 SendEmail, which
		// SES authorizes as ses:SendEmail; ses:SendRawEmail is the same
		// permission for the v1 raw call. Scoped to the one identity.
		fn.AddToRolePolicy(awsiam.NewPolicyStatement(&awsiam.PolicyStatementProps{
			Actions:   jsii.Strings("ses:SendEmail", "ses:SendRawEmail"),
			Resources: jsii.Strings(sesIdentity),
		}))
	}

	integ := awsapigatewayv2integrations.NewHttpLambdaIntegration(jsii.String(pascal(g.Name)+"Integration"), fn,
		&awsapigatewayv2integrations.HttpLambdaIntegrationProps{
			PayloadFormatVersion: awsapigatewayv2.PayloadFormatVersion_VERSION_2_0(),
			// One invoke permission per function for the whole API rather
			// than one per route: the function serves exactly the routes
			// that point to it, and its resource policy stays small.
			ScopePermissionToRoute: jsii.Bool(false),
		})
	s.Integrations[g.Name] = integ
	for _, p := range g.Prefixes {
		for _, path := range []string{p, p + "/{proxy+}"} {
			s.API.AddRoutes(&awsapigatewayv2.AddRoutesOptions{
				Path:        jsii.String(path),
				Methods:     &[]awsapigatewayv2.HttpMethod{awsapigatewayv2.HttpMethod_ANY},
				Integration: integ,
			})
		}
	}
	if g.Default {
		awsapigatewayv2.NewHttpRoute(s.Stack, jsii.String("DefaultRoute"), &awsapigatewayv2.HttpRouteProps{
			HttpApi:     s.API,
			RouteKey:    awsapigatewayv2.HttpRouteKey_DEFAULT(),
			Integration: integ,
		})
		// The $default route's ARN is <api>/<stage>/$default: one segment
		// fewer than the <api>/*/*/* of the integration's permission, so
		// without this one an unclaimed path gets API Gateway's 500
		// instead of the service's 404.
		fn.AddPermission(jsii.String("DefaultRouteInvoke"), &awslambda.Permission{
			Principal: awsiam.NewServicePrincipal(jsii.String("apigateway.amazonaws.com"), nil),
			SourceArn: s.Stack.FormatArn(&awscdk.ArnComponents{
				Service:      jsii.String("execute-api"),
				Resource:     s.API.ApiId(),
				ResourceName: jsii.String("*/$default"),
				ArnFormat:    awscdk.ArnFormat_SLASH_RESOURCE_NAME,
			}),
		})
	}
	return nil
}

// chromiumLayer is the layer of the Chromium pack, made once per stack.
func (s *Stack) chromiumLayer(cfg settings) awslambda.ILayerVersion {
	if s.chromium == nil {
		s.chromium = awslambda.NewLayerVersion(s.Stack, jsii.String("ChromiumLayer"), &awslambda.LayerVersionProps{
			Description: jsii.String("Serverless Chromium (@sparticuz/chromium bin/) for brand_assets screenshots, under " +
				chromiumPackDir),
			Code:                    awslambda.Code_FromAsset(jsii.String(assetPath(cfg, chromiumLayerAsset)), nil),
			CompatibleArchitectures: &[]awslambda.Architecture{awslambda.Architecture_X86_64()},
		})
	}
	return s.chromium
}

func assetPath(cfg settings, group string) string {
	return filepath.Join(cfg.AssetDir, group+".zip")
}

// newTable creates the DynamoDB table of a schema (docs/tables.md). Tables
// keep their data when the stack is deleted or the table replaced.
func newTable(stack awscdk.Stack, sc store.Schema) awsdynamodb.Table {
	props := &awsdynamodb.TableProps{
		PartitionKey: &awsdynamodb.Attribute{Name: jsii.String(sc.PK), Type: awsdynamodb.AttributeType_STRING},
		SortKey:      &awsdynamodb.Attribute{Name: jsii.String(sc.SK), Type: awsdynamodb.AttributeType_STRING},
		BillingMode:  awsdynamodb.BillingMode_PAY_PER_REQUEST,
		PointInTimeRecoverySpecification: &awsdynamodb.PointInTimeRecoverySpecification{
			PointInTimeRecoveryEnabled: jsii.Bool(true),
		},
		RemovalPolicy: awscdk.RemovalPolicy_RETAIN,
	}
	if sc.TTL != "" {
		props.TimeToLiveAttribute = jsii.String(sc.TTL)
	}
	if sc.Stream {
		props.Stream = awsdynamodb.StreamViewType_NEW_AND_OLD_IMAGES
	}
	t := awsdynamodb.NewTable(stack, jsii.String(pascal(sc.Name)+"Table"), props)
	for _, ix := range sc.Indexes {
		gsi := &awsdynamodb.GlobalSecondaryIndexProps{
			IndexName:      jsii.String(ix.Name),
			PartitionKey:   &awsdynamodb.Attribute{Name: jsii.String(ix.PK), Type: awsdynamodb.AttributeType_STRING},
			ProjectionType: awsdynamodb.ProjectionType_ALL,
		}
		if ix.SK != "" {
			gsi.SortKey = &awsdynamodb.Attribute{Name: jsii.String(ix.SK), Type: awsdynamodb.AttributeType_STRING}
		}
		t.AddGlobalSecondaryIndex(gsi)
	}
	return t
}

// addQueues creates the queues of app.Queues, each dead-letter queue before
// the queues redriving to it, and an alarm on every dead-letter queue: a
// message there is work that failed MaxReceives times and needs a human.
func (s *Stack) addQueues(sv spec) {
	byName := map[string]queue.Config{}
	for _, q := range sv.Queues {
		byName[q.Name] = q
	}
	dlqs := sv.deadLetterQueues()
	// check() has ruled out missing dead-letter queues and cycles, so the
	// recursion ends.
	var create func(q queue.Config) awssqs.Queue
	create = func(q queue.Config) awssqs.Queue {
		if made, ok := s.Queues[q.Name]; ok {
			return made
		}
		props := &awssqs.QueueProps{
			VisibilityTimeout: awscdk.Duration_Seconds(jsii.Number(q.VisibilityTimeout.Seconds())),
			Encryption:        awssqs.QueueEncryption_SQS_MANAGED,
			EnforceSSL:        jsii.Bool(true),
		}
		if q.DeadLetter != "" {
			props.DeadLetterQueue = &awssqs.DeadLetterQueue{
				Queue:           create(byName[q.DeadLetter]),
				MaxReceiveCount: jsii.Number(q.MaxReceives),
			}
		}
		if dlqs[q.Name] {
			// A dead letter sits until someone looks: keep it the SQS
			// maximum rather than the default 4 days.
			props.RetentionPeriod = awscdk.Duration_Days(jsii.Number(14))
		}
		made := awssqs.NewQueue(s.Stack, jsii.String(pascal(q.Name)+"Queue"), props)
		s.Queues[q.Name] = made
		if dlqs[q.Name] {
			s.alarm(pascal(q.Name)+"NotEmptyAlarm", "Dead-letter queue "+q.Name+" holds messages that failed every delivery.",
				made.MetricApproximateNumberOfMessagesVisible(alarmPeriod("Maximum")), 1)
		}
		if slices.Contains(sv.WorkQueues, q.Name) {
			s.alarm(pascal(q.Name)+"OldestMessageAlarm", "Work in queue "+q.Name+" has waited over "+minutes(queueAgeAlarm)+
				": its worker falls behind (concurrency, throttles) or keeps failing a message.",
				made.MetricApproximateAgeOfOldestMessage(alarmPeriod("Maximum")), queueAgeAlarm.Seconds())
		}
		return made
	}
	for _, q := range sv.Queues {
		create(q)
	}
}

// newBucket creates the file store's bucket. Its lifecycle rules are those
// shared/app/resources.go states for each key prefix; assets/ has none.
func newBucket(stack awscdk.Stack) awss3.Bucket {
	return awss3.NewBucket(stack, jsii.String("FilesBucket"), &awss3.BucketProps{
		Encryption:        awss3.BucketEncryption_S3_MANAGED,
		BlockPublicAccess: awss3.BlockPublicAccess_BLOCK_ALL(),
		EnforceSSL:        jsii.Bool(true),
		Versioned:         jsii.Bool(false),
		RemovalPolicy:     awscdk.RemovalPolicy_RETAIN,
		LifecycleRules: &[]*awss3.LifecycleRule{
			{
				Id:         jsii.String("expire-" + strings.TrimSuffix(app.PrefixJobs, "/")),
				Prefix:     jsii.String(app.PrefixJobs),
				Expiration: awscdk.Duration_Days(jsii.Number(jobsExpirationDays())),
			},
			{
				Id:         jsii.String("expire-" + strings.TrimSuffix(app.PrefixExports, "/")),
				Prefix:     jsii.String(app.PrefixExports),
				Expiration: awscdk.Duration_Days(jsii.Number(1)),
			},
			{
				Id:                                  jsii.String("abort-incomplete-uploads"),
				AbortIncompleteMultipartUploadAfter: awscdk.Duration_Days(jsii.Number(1)),
			},
		},
	})
}
