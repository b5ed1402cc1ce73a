package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/prospectdata/svc/shared/store"
)

// CreateTables creates the tables of schemas (physical names from names, as
// in New) for tests and local emulators; production tables come from the
// CDK stack. Each table gets its key schema, its GSIs (projection ALL,
// string keys), on-demand billing (PAY_PER_REQUEST), a stream of new and
// old images when the schema asks for one, and TTL on its TTL attribute.
//
// A table that already exists is left as it is (not compared with its
// schema), so that a long-lived emulator can be reused. An emulator without
// the TTL API gets no TTL setting: the driver hides expired items itself,
// and only the eventual deletion, which no test can wait for, is missing.
func CreateTables(ctx context.Context, client *dynamodb.Client, schemas []store.Schema, names map[string]string) error {
	for _, s := range schemas {
		if err := validateSchema(s); err != nil {
			return fmt.Errorf("dynamo: create tables: %w: %w", store.ErrInvalid, err)
		}
		name := s.Name
		if n := names[s.Name]; n != "" {
			name = n
		}
		if err := createTable(ctx, client, s, name); err != nil {
			return fmt.Errorf("dynamo: create table %s (%s): %w", s.Name, name, err)
		}
	}
	return nil
}

func createTable(ctx context.Context, client *dynamodb.Client, s store.Schema, name string) error {
	defs := map[string]bool{}
	var attrDefs []types.AttributeDefinition
	keySchema := func(pk, sk string) []types.KeySchemaElement {
		ks := []types.KeySchemaElement{{AttributeName: aws.String(pk), KeyType: types.KeyTypeHash}}
		if sk != "" {
			ks = append(ks, types.KeySchemaElement{AttributeName: aws.String(sk), KeyType: types.KeyTypeRange})
		}
		for _, a := range []string{pk, sk} {
			if a != "" && !defs[a] {
				defs[a] = true
				attrDefs = append(attrDefs, types.AttributeDefinition{AttributeName: aws.String(a), AttributeType: types.ScalarAttributeTypeS})
			}
		}
		return ks
	}
	in := &dynamodb.CreateTableInput{
		TableName:   aws.String(name),
		KeySchema:   keySchema(s.PK, s.SK),
		BillingMode: types.BillingModePayPerRequest,
	}
	for _, ix := range s.Indexes {
		in.GlobalSecondaryIndexes = append(in.GlobalSecondaryIndexes, types.GlobalSecondaryIndex{
			IndexName:  aws.String(ix.Name),
			KeySchema:  keySchema(ix.PK, ix.SK),
			Projection: &types.Projection{ProjectionType: types.ProjectionTypeAll},
		})
	}
	in.AttributeDefinitions = attrDefs
	if s.Stream {
		in.StreamSpecification = &types.StreamSpecification{StreamEnabled: aws.Bool(true), StreamViewType: types.StreamViewTypeNewAndOldImages}
	}
	_, err := client.CreateTable(ctx, in)
	var inUse *types.ResourceInUseException
	if err != nil && !errors.As(err, &inUse) {
		return err
	}
	// Emulators create tables at once; AWS takes seconds, hence the short
	// first delay rather than the waiter's default of 20 s.
	w := dynamodb.NewTableExistsWaiter(client, func(o *dynamodb.TableExistsWaiterOptions) {
		o.MinDelay, o.MaxDelay = 200*time.Millisecond, 5*time.Second
	})
	if err := w.Wait(ctx, &dynamodb.DescribeTableInput{TableName: aws.String(name)}, 5*time.Minute); err != nil {
		return fmt.Errorf("wait until active: %w", err)
	}
	if s.TTL == "" {
		return nil
	}
	_, err = client.UpdateTimeToLive(ctx, &dynamodb.UpdateTimeToLiveInput{
		TableName: aws.String(name),
		TimeToLiveSpecification: &types.TimeToLiveSpecification{
			AttributeName: aws.String(s.TTL), Enabled: aws.Bool(true),
		},
	})
	// An emulator without the API, or a reused table where TTL is already
	// enabled (AWS refuses to enable it twice), is fine.
	if err == nil || isCode(err, "UnknownOperationException") || existingTTL(ctx, client, name, s.TTL) {
		return nil
	}
	return fmt.Errorf("enable TTL on %s: %w", s.TTL, err)
}

// existingTTL reports whether TTL is already enabled on attr.
func existingTTL(ctx context.Context, client *dynamodb.Client, name, attr string) bool {
	out, err := client.DescribeTimeToLive(ctx, &dynamodb.DescribeTimeToLiveInput{TableName: aws.String(name)})
	if err != nil || out.TimeToLiveDescription == nil {
		return false
	}
	d := out.TimeToLiveDescription
	return aws.ToString(d.AttributeName) == attr &&
		(d.TimeToLiveStatus == types.TimeToLiveStatusEnabled || d.TimeToLiveStatus == types.TimeToLiveStatusEnabling)
}
