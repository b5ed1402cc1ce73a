// Command veille-tick is the Lambda an EventBridge scheduled rule invokes
// every minute: it starts the due veilles' replays and computes the runs
// whose replay has ended (veille.Service.Tick). It only wires.
package main

import "github.com/prospectdata/svc/shared/app/onaws"

func main() { onaws.VeilleTickMain() }
