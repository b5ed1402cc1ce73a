package enrich

import (
	"context"
	"errors"

	"github.com/prospectdata/svc/shared/modules"
	"github.com/prospectdata/svc/shared/registers"
)

// LegalDataModule is the legal_data module over the company registers
// client c. source is what jobs record as the module's source (Sourced):
// the registers' names, or "sim" when c reads the simulated twin.
func LegalDataModule(c *registers.Client, source string) Module {
	return &legalDataModule{c: c, source: source}
}

type legalDataModule struct {
	c      *registers.Client
	source string
}

var _ Sourced = (*legalDataModule)(nil)

func (m *legalDataModule) Slug() string      { return modules.LegalData }
func (m *legalDataModule) Columns() []string { return registers.LegalDataColumns }
func (m *legalDataModule) Source() string    { return m.source }

// Reads is nom (the spec's Needs), then the identifiers and places that
// make a lookup surer: a SIRET or SIREN (legal_ids' columns), a VAT number
// (legal_mentions' tva_intracom), the address, postcode and commune.
func (m *legalDataModule) Reads() []string {
	return []string{"nom", "siret", "siren", "adresse", "code_postal", "commune", "tva_intracom"}
}

// Run looks the row's company up. No match is empty cells (not an
// error); a register that fails after its retries makes the row
// Unreachable (with the company's cells filled when only BODACC failed).
func (m *legalDataModule) Run(ctx context.Context, _ *Env, in Input) (Result, error) {
	co, err := m.c.Lookup(ctx, registers.Query{
		Name: in["nom"], SIRET: in["siret"], SIREN: in["siren"], VAT: in["tva_intracom"],
		Address: in["adresse"], Postcode: in["code_postal"], Commune: in["commune"],
	})
	empty := make([]string, len(registers.LegalDataColumns))
	switch {
	case err == nil:
		return Result{Values: registers.LegalDataValues(&co), Found: true, Unreachable: len(co.Incomplete) > 0}, nil
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case errors.Is(err, registers.ErrNotFound), errors.Is(err, registers.ErrBadQuery):
		return Result{Values: empty}, nil
	}
	var ae *registers.APIError
	if errors.As(err, &ae) && ae.StatusCode == 400 {
		return Result{Values: empty}, nil
	}
	return Result{Values: empty, Unreachable: true}, nil
}
