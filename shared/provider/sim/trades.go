package sim

import (
	"strings"

	"github.com/prospectdata/svc/shared/gazetteer"
)

// trade is a category in a language other than French: the word a map
// shows as its category, and the templates of its places' names as the
// country's businesses call themselves ("Klempnerei {S}", "Fontanería
// {S}", "{S} Plumbing"), never the French templates' translation word by
// word nor "{category} {surname}" ("Plumber Meyer").
type trade struct {
	display string
	names   []string
}

// tradeTable is, by category key, its German, Spanish, Italian and
// English entries: "Category word,other words that find it;template|
// template". The English category word is the category's en.
var tradeTable = map[string][4]string{
	"boulangerie": {"Bäckerei,Bäcker;Bäckerei {S}|Bäckerei {S} {L}|Backhaus {S}|Landbäckerei {S}", "Panadería,panadero,horno;Panadería {S}|Horno {L}|Panadería {L}", "Panetteria,panificio,fornaio;Panificio {S}|Panetteria {L}|Forno {S}", ";{S}'s Bakery|{t} Bakery|The Bread Shop|{S} Bakers"},
	"restaurant":  {"Restaurant,Gasthaus,Gaststätte;Restaurant {S}|Gasthaus {L}|Gasthof zur Post|Restaurant Zum Löwen|Wirtshaus {S}", "Restaurante,mesón;Restaurante {S}|Casa {F}|Mesón {L}|Restaurante {L}|Taberna {S}", "Ristorante,trattoria,osteria;Ristorante {L}|Trattoria da {F}|Osteria {L}|Ristorante {S}", ";The {S} Kitchen|{F}'s Diner|The {A} Table|{t} Grill|{S}'s Restaurant"},
	"plombier":    {"Klempner,Klempnerei,Sanitär,Installateur;Klempnerei {S}|{S} Sanitär- und Heizungstechnik|Sanitär {S}|{S} Haustechnik", "Fontanero,fontanería;Fontanería {S}|Fontanería {L}|Instalaciones {S}|Fontanería y Calefacción {S}", "Idraulico,idraulica,termoidraulica;Idraulica {S}|Idraulico {F} {S}|Termoidraulica {S}", ";{S} Plumbing|{S} & Sons Plumbing|{t} Plumbing & Heating|{F} {S} Plumbing"},
	"coiffeur":    {"Friseur,Friseursalon,Frisör;Friseur {S}|Salon {F}|Haarstudio {F}|Friseursalon {L}", "Peluquería,peluquero;Peluquería {F}|Peluquería {L}|Salón {F}", "Parrucchiere,acconciature;Parrucchiere {F}|Acconciature {F}|Salone {F}", ";{F}'s Hair Studio|{S} Hair|The Hair Lounge|{t} Barbers"},
	"pharmacie":   {"Apotheke;Apotheke {L}|Stadt-Apotheke|Löwen-Apotheke|Rathaus-Apotheke", "Farmacia;Farmacia {S}|Farmacia {L}|Farmacia Lda. {F} {S}", "Farmacia;Farmacia {S}|Farmacia {L}|Farmacia Comunale", ";{S} Pharmacy|{t} Pharmacy|{A} Pharmacy"},
	"notaire":     {"Notar,Notariat;Notar {F} {S}|Notariat {S}|Notare {S} & {S2}", "Notaría,notario;Notaría {S}|Notaría {F} {S}", "Notaio,studio notarile;Studio Notarile {S}|Notaio {F} {S}", ";{S} Notary Services|{F} {S}, Notary Public"},
	"avocat":      {"Rechtsanwalt,Anwalt,Kanzlei;Rechtsanwalt {F} {S}|Kanzlei {S}|{S} & {S2} Rechtsanwälte", "Abogado,abogados,bufete;{S} Abogados|Bufete {S}|{S} & {S2} Abogados", "Avvocato,studio legale;Studio Legale {S}|Avv. {F} {S}|Studio Legale {S} & {S2}", ";{S} & {S2} LLP|{S} Law|{S} Solicitors"},
	"dentiste":    {"Zahnarzt,Zahnarztpraxis;Zahnarztpraxis Dr. {S}|Dr. {F} {S}, Zahnarzt|Zahnärzte {L}", "Dentista,clínica dental;Clínica Dental {S}|Clínica Dental {L}|Dr. {F} {S}", "Dentista,studio dentistico;Studio Dentistico {S}|Dott. {F} {S}|Studio Dentistico {L}", ";{t} Dental|{S} Dental Care|Dr {F} {S}, Dentist"},
	"garage":      {"Autowerkstatt,Kfz-Werkstatt,Werkstatt;Autowerkstatt {S}|Kfz-Werkstatt {S}|Autohaus {S}|Kfz-Meisterbetrieb {S}", "Taller mecánico,taller;Talleres {S}|Taller {L}|Autos {S}", "Autofficina,officina;Autofficina {S}|Officina {L}|Autoriparazioni {S}", ";{S} Auto Repair|{t} Motors|{S}'s Garage"},
	"hotel":       {"Hotel,Pension;Hotel {S}|Hotel {L}|Hotel zur Post|Landhotel {S}|Hotel {A}", "Hotel,hostal;Hotel {L}|Hotel {S}|Hostal {S}|Hotel {A}", "Hotel,albergo;Hotel {L}|Albergo {S}|Hotel {A}", ";The {A} Hotel|{t} Inn|{S} House Hotel"},
	"immobilier":  {"Immobilienmakler,Makler,Immobilien;{S} Immobilien|Immobilien {S}|{t} Immobilien", "Inmobiliaria;Inmobiliaria {S}|Inmobiliaria {L}|Fincas {S}", "Agenzia immobiliare,immobiliare;Immobiliare {S}|Agenzia Immobiliare {L}", ";{S} Estate Agents|{S} Realty|{t} Homes"},
	"fleuriste":   {"Blumenladen,Blumen,Floristik;Blumen {S}|Blumenhaus {F}|Floristik {S}", "Floristería,floristeria,flores;Floristería {F}|Flores {S}|Floristería {L}", "Fioraio,fiori,fioreria;Fiori {S}|Fioreria {F}|Il Giardino di {F}", ";{F}'s Flowers|{t} Florist|The Flower Shop"},
	"boucherie":   {"Metzgerei,Metzger,Fleischerei;Metzgerei {S}|Fleischerei {S}|Landmetzgerei {S}", "Carnicería,carnicero;Carnicería {S}|Carnicería {L}", "Macelleria,macellaio;Macelleria {S}|Macelleria {L}", ";{S} Butchers|{S}'s Quality Meats"},
	"electricien": {"Elektriker,Elektroinstallateur;Elektro {S}|{S} Elektrotechnik|Elektro-{S} GmbH", "Electricista;Electricidad {S}|Instalaciones Eléctricas {S}|Electro {S}", "Elettricista;Impianti Elettrici {S}|Elettricista {F} {S}|Elettro {S}", ";{S} Electrical|{S} Electric|{t} Electrical Services"},
	"medecin":     {"Allgemeinarzt,Hausarzt,Arzt;Praxis Dr. {S}|Dr. med. {F} {S}|Hausarztpraxis {L}", "Médico de cabecera,médico;Consulta Dr. {S}|Dr. {F} {S}|Centro Médico {L}", "Medico di base,medico;Studio Medico {S}|Dott. {F} {S}|Poliambulatorio {L}", ";{t} Medical Centre|{S} Family Practice|Dr {F} {S}"},
	"kine":        {"Physiotherapeut,Physiotherapie,Krankengymnastik;Physiotherapie {S}|Praxis für Physiotherapie {F} {S}|Physio {L}", "Fisioterapeuta,fisioterapia;Fisioterapia {S}|Clínica de Fisioterapia {L}", "Fisioterapista,fisioterapia;Fisioterapia {S}|Centro Fisioterapico {L}", ";{t} Physiotherapy|{S} Physio"},
	"comptable":   {"Steuerberater,Steuerkanzlei;Steuerberater {F} {S}|Steuerkanzlei {S}|{S} & {S2} Steuerberatung", "Asesoría contable,gestoría,asesoría;Asesoría {S}|Gestoría {S}|{S} Asesores", "Commercialista;Studio Commercialista {S}|{S} & {S2} Commercialisti", ";{S} & Co Accountants|{S} Accounting|{S} & {S2} CPA"},
	"architecte":  {"Architekt,Architekturbüro;Architekturbüro {S}|{S} Architekten|Architekt {F} {S}", "Arquitecto,arquitectos;{S} Arquitectos|Estudio de Arquitectura {S}", "Architetto;Studio di Architettura {S}|Arch. {F} {S}", ";{S} Architects|{S} & {S2} Architecture"},
	"opticien":    {"Optiker,Augenoptik;Optik {S}|Augenoptik {S}|{S} Optik", "Óptica;Óptica {S}|Óptica {L}", "Ottica,ottico;Ottica {S}|Ottica {L}", ";{S} Opticians|{t} Eye Care"},
	"veterinaire": {"Tierarzt,Tierarztpraxis,Tierklinik;Tierarztpraxis Dr. {S}|Tierklinik {L}|Dr. {F} {S}, Tierarzt", "Veterinario,clínica veterinaria;Clínica Veterinaria {L}|Clínica Veterinaria {S}", "Veterinario,clinica veterinaria;Clinica Veterinaria {L}|Ambulatorio Veterinario {S}", ";{t} Vets|{S} Veterinary Clinic"},
	"bar":         {"Bar,Kneipe;Kneipe {L}|Bar {F}|Café {S}", "Bar,cafetería;Bar {F}|Bar {L}|Cafetería {S}", "Bar,caffè;Bar {L}|Caffè {S}|Bar da {F}", ";The {A} Arms|The {S} Pub|{F}'s Bar"},
	"pizzeria":    {"Pizzeria;Pizzeria {L}|Pizzeria Da {F}|Pizzeria Napoli|Pizzeria Bella Italia", "Pizzería;Pizzería {L}|Pizzería Da {F}|Pizzería Napoli", "Pizzeria;Pizzeria da {F}|Pizzeria {L}|Pizzeria Napoli", ";{F}'s Pizza|{t} Pizza|Pizza {A}"},
	"menuisier":   {"Schreiner,Schreinerei,Tischler,Tischlerei;Schreinerei {S}|Tischlerei {S}|Holzwerkstatt {S}", "Carpintero,carpintería;Carpintería {S}|Carpintería {L}", "Falegname,falegnameria;Falegnameria {S}|Falegnameria {L}", ";{S} Joinery|{S} Carpentry"},
	"peintre":     {"Maler,Malerbetrieb;Malerbetrieb {S}|Maler {S}|{S} Malerwerkstätte", "Pintor,pinturas;Pinturas {S}|Pintor {F} {S}", "Imbianchino;Imbiancature {S}|Pittore Edile {S}", ";{S} Painting & Decorating|{S} Painters"},
	"serrurier":   {"Schlüsseldienst,Schlosserei;Schlüsseldienst {S}|Schlüsseldienst {t}|Schlosserei {S}", "Cerrajero,cerrajería;Cerrajería {S}|Cerrajeros {t}", "Fabbro;Fabbro {S}|Serrature {S}", ";{S} Locksmiths|{t} Locksmith"},
	"beaute":      {"Kosmetikstudio,Kosmetik;Kosmetikstudio {F}|Kosmetik {L}|Beauty Lounge {F}", "Centro de estética,estética;Centro de Estética {F}|Estética {L}", "Centro estetico,estetista;Centro Estetico {F}|Estetica {L}", ";{F}'s Beauty|{t} Beauty Salon|The Beauty Room"},
	"banque":      {"Bank,Sparkasse,Volksbank;Sparkasse {t}|Volksbank {t}|Bank {S}", "Banco,caja;Banco {S}|Caja Rural {t}|Banco {A}", "Banca;Banca Popolare di {t}|Cassa di Risparmio di {t}|Banca {S}", ";{t} Savings Bank|{A} Bank|{S} Bank"},
	"assurance":   {"Versicherungsagentur,Versicherung;Versicherungsbüro {S}|{S} Versicherungen|Agentur {F} {S}", "Agencia de seguros,seguros;Seguros {S}|Correduría {S}", "Agenzia assicurativa,assicurazioni;Assicurazioni {S}|Agenzia {S}", ";{S} Insurance|{S} Insurance Agency"},
	"supermarche": {"Supermarkt,Lebensmittel;Markt {S}|Frischemarkt {S}|Supermarkt {L}", "Supermercado,alimentación;Supermercado {S}|Supermercados {L}|Alimentación {S}", "Supermercato,alimentari;Supermercato {S}|Alimentari {S}|Market {L}", ";{S}'s Market|{t} Grocery|{A} Foods"},
	"maconnerie":  {"Maurer,Bauunternehmen;Bauunternehmen {S}|{S} Bau GmbH|Maurerbetrieb {S}", "Albañil,construcciones,reformas;Construcciones {S}|Reformas {S}|Albañilería {S}", "Muratore,impresa edile,edilizia;Edilizia {S}|Costruzioni {S}|Impresa Edile {S}", ";{S} Building|{S} Construction|{S} Masonry"},
	"couvreur":    {"Dachdecker,Dachdeckerei;Dachdeckerei {S}|{S} Bedachungen|Dachdecker {S}", "Techador,tejados;Tejados {S}|Cubiertas {S}", "Copritetto,coperture;Coperture {S}|Tetti {S}", ";{S} Roofing|{t} Roofing"},
	"osteopathe":  {"Osteopath,Osteopathie;Osteopathie {S}|Praxis für Osteopathie {F} {S}", "Osteópata,osteopatía;Osteopatía {S}|Centro de Osteopatía {L}", "Osteopata,osteopatia;Osteopatia {S}|Studio di Osteopatia {F} {S}", ";{t} Osteopathy|{S} Osteopaths"},
	"autoecole":   {"Fahrschule;Fahrschule {S}|Fahrschule {L}|Fahrschule {t}", "Autoescuela;Autoescuela {S}|Autoescuela {L}", "Autoscuola;Autoscuola {S}|Autoscuola {L}", ";{S} Driving School|{t} School of Motoring"},
	"sport":       {"Fitnessstudio,Fitness-Studio;Fitnessstudio {t}|{A} Fitness|Sportstudio {S}", "Gimnasio;Gimnasio {S}|Gimnasio {L}|{A} Fitness", "Palestra;Palestra {L}|Palestra {S}|{A} Fitness", ";{t} Fitness|{A} Gym|{S}'s Gym"},
	"caviste":     {"Weinhandlung,Vinothek;Weinhandlung {S}|Weinkontor {S}|Vinothek {L}", "Vinoteca,bodega;Vinoteca {S}|Bodega {S}", "Enoteca;Enoteca {S}|Enoteca {L}", ";{S} Wines|The {t} Wine Shop"},
	"patisserie":  {"Konditorei,Konditor;Konditorei {S}|Café Konditorei {S}|Confiserie {S}", "Pastelería,confitería;Pastelería {S}|Confitería {L}", "Pasticceria;Pasticceria {S}|Pasticceria {L}", ";{F}'s Patisserie|{t} Cakes"},
	"traiteur":    {"Partyservice,Catering;Partyservice {S}|{S} Catering|Feinkost {S}", "Catering;Catering {S}|Eventos {S}", "Catering;Catering {S}|Banqueting {S}", ";{S} Catering|{F}'s Kitchen Catering"},
	"librairie":   {"Buchhandlung;Buchhandlung {S}|Bücherstube {L}|Buchhandlung {L}", "Librería;Librería {S}|Librería {L}", "Libreria;Libreria {S}|Libreria {L}", ";{S} Books|{t} Bookshop"},
	"pressing":    {"Reinigung,Textilreinigung;Textilreinigung {S}|Reinigung {L}", "Tintorería;Tintorería {S}|Tintorería {L}", "Lavanderia,tintoria;Lavanderia {S}|Tintoria {L}", ";{t} Dry Cleaners|{A} Dry Cleaning"},
}

// tradeLangs are the languages of tradeTable's columns.
var tradeLangs = [4]lang{langDE, langES, langIT, langEN}

// withTrades fills the categories' trades from tradeTable; the words
// that find them are returned by category key, to index.
func withTrades(cs []category) map[string][]string {
	words := map[string][]string{}
	for i := range cs {
		c := &cs[i]
		row, ok := tradeTable[c.key]
		if !ok {
			continue
		}
		c.trades = map[lang]trade{}
		for j, cell := range row {
			head, tpl, _ := strings.Cut(cell, ";")
			ws := strings.Split(head, ",")
			t := trade{display: ws[0], names: strings.Split(tpl, "|")}
			if tradeLangs[j] == langEN {
				t.display = c.en
			}
			c.trades[tradeLangs[j]] = t
			for _, w := range ws {
				if w = gazetteer.Normalize(w); w != "" {
					words[c.key] = append(words[c.key], w)
				}
			}
		}
	}
	return words
}
