package onaws

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

// SecretsEnv names the variable listing the Secrets Manager secrets a
// function reads at init (a JSON array of SecretRef). The stack puts only
// ARNs there: the values never appear in the function's configuration or
// in the template, and the function's role may read exactly those secrets
// (docs/aws.md, "Secrets").
const SecretsEnv = "SVC_SECRETS"

// SecretRef is one secret of SecretsEnv and the variables it provides:
// its whole SecretString becomes Var, or each field of its JSON object
// becomes the variable Fields maps it to.
type SecretRef struct {
	ARN    string            `json:"arn"`
	Var    string            `json:"var,omitempty"`
	Fields map[string]string `json:"fields,omitempty"`
}

// SecretReader is the Secrets Manager call the init read makes.
type SecretReader interface {
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput, opts ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
}

// secretsTimeout bounds the whole read, well inside Lambda's 10 s init
// phase: a Secrets Manager that does not answer fails the init with a
// message rather than a timeout.
const secretsTimeout = 5 * time.Second

// withSecrets is getenv overlaid with the secrets SecretsEnv lists, read
// with the SDK's default configuration (AWS_ENDPOINT_URL_SECRETS_MANAGER
// for a stand-in); getenv itself when the variable is unset, so that the
// local runtime and the tests that set plain variables make no call.
func withSecrets(ctx context.Context, getenv func(string) string, log *slog.Logger) (func(string) string, error) {
	if strings.TrimSpace(getenv(SecretsEnv)) == "" {
		return getenv, nil
	}
	awsCfg, err := awsconfig.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, fmt.Errorf("aws config: %w", err)
	}
	return ReadSecrets(ctx, getenv, secretsmanager.NewFromConfig(awsCfg), log)
}

// ReadSecrets reads each secret of SecretsEnv once (all at once: they are
// on the cold-start path) and returns getenv overlaid with their values.
// An empty or absent field leaves its variable to getenv, with a warning:
// it is a placeholder the operator has not filled yet, and the
// configuration says what it lacks. A secret that cannot be read, or whose
// value is not the JSON object its fields need, is an error: the function
// must not start without its keys.
func ReadSecrets(ctx context.Context, getenv func(string) string, client SecretReader, log *slog.Logger) (func(string) string, error) {
	var refs []SecretRef
	if err := json.Unmarshal([]byte(getenv(SecretsEnv)), &refs); err != nil {
		return nil, fmt.Errorf("%s: not a JSON array of secrets: %w", SecretsEnv, err)
	}
	for i, r := range refs {
		if r.ARN == "" || (r.Var == "") == (len(r.Fields) == 0) {
			return nil, fmt.Errorf("%s: secret %d needs an arn and either var or fields", SecretsEnv, i)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, secretsTimeout)
	defer cancel()
	vals := make([]map[string]string, len(refs))
	errs := make([]error, len(refs))
	var wg sync.WaitGroup
	for i, r := range refs {
		wg.Go(func() { vals[i], errs[i] = readSecret(ctx, client, r, log) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	overlay := map[string]string{}
	for _, v := range vals {
		for k, s := range v {
			overlay[k] = s
		}
	}
	return func(k string) string {
		if v, ok := overlay[k]; ok {
			return v
		}
		return getenv(k)
	}, nil
}

// readSecret reads one secret into the variables it provides.
func readSecret(ctx context.Context, client SecretReader, r SecretRef, log *slog.Logger) (map[string]string, error) {
	out, err := client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(r.ARN)})
	if err != nil {
		return nil, fmt.Errorf("secret %s: %w", r.ARN, err)
	}
	if out.SecretString == nil {
		return nil, fmt.Errorf("secret %s holds no string (a binary secret)", r.ARN)
	}
	raw := *out.SecretString
	vars := map[string]string{}
	empty := func(what string) {
		log.Warn("secret value empty: fill it (docs/aws.md, Secrets)", "secret", r.ARN, "field", what)
	}
	if r.Var != "" {
		if strings.TrimSpace(raw) == "" {
			empty("")
		} else {
			vars[r.Var] = raw
		}
		return vars, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(raw), &fields); err != nil {
		return nil, fmt.Errorf("secret %s: not a JSON object of fields: %w", r.ARN, err)
	}
	for field, env := range r.Fields {
		v, err := fieldText(fields[field])
		if err != nil {
			return nil, fmt.Errorf("secret %s: field %s: %w", r.ARN, field, err)
		}
		if strings.TrimSpace(v) == "" {
			empty(field)
			continue
		}
		vars[env] = v
	}
	return vars, nil
}

// fieldText is a field's value as its variable holds it: a string as it
// is, any other JSON value (delivery_seeds may be stored as an array
// rather than as a string of JSON) as its JSON text, null or absent as "".
func fieldText(v json.RawMessage) (string, error) {
	if len(v) == 0 || string(v) == "null" {
		return "", nil
	}
	if v[0] == '"' {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", err
		}
		return s, nil
	}
	return string(v), nil
}
