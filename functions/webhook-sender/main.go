// Command webhook-sender is the Lambda of webhook deliveries (app.Workers):
// fed by the events table's stream, it fans new events out into
// deliveries; fed by the deliveries queue, it posts them. It only wires.
package main

import "github.com/prospectdata/svc/shared/app/onaws"

func main() { onaws.WebhookMain() }
