package sim

// Word tables of the generated places, by language. Constant data.

// lang is the language a place's name, address and site are written in.
type lang int

const (
	langFR lang = iota
	langEN
	langDE
	langES
	langIT
)

// countryLang is the language of each country's places; English for the
// countries not listed.
var countryLang = map[string]lang{
	"FRA": langFR, "BEL": langFR, "CHE": langFR, "LUX": langFR, "MCO": langFR,
	"DEU": langDE, "AUT": langDE, "LIE": langDE,
	"ESP": langES, "MEX": langES, "ARG": langES, "COL": langES, "CHL": langES, "PER": langES,
	"ITA": langIT, "SMR": langIT,
}

func langOf(country string) lang {
	if l, ok := countryLang[country]; ok {
		return l
	}
	return langEN
}

var surnames = [...][]string{
	langFR: {"Martin", "Bernard", "Thomas", "Petit", "Robert", "Richard", "Durand", "Dubois", "Moreau", "Laurent",
		"Simon", "Michel", "Lefebvre", "Leroy", "Roux", "David", "Bertrand", "Morel", "Fournier", "Girard",
		"Bonnet", "Dupont", "Lambert", "Fontaine", "Rousseau", "Vincent", "Muller", "Lefèvre", "Faure", "André",
		"Mercier", "Blanc", "Guérin", "Boyer", "Garnier", "Chevalier", "François", "Legrand", "Gauthier", "Garcia",
		"Perrin", "Robin", "Clément", "Morin", "Nicolas", "Henry", "Roussel", "Mathieu", "Masson", "Marchand",
		"Duval", "Denis", "Dumont", "Marie", "Lemaire", "Noël", "Meyer", "Dufour", "Meunier", "Brun",
		"Blanchard", "Giraud", "Joly", "Rivière", "Lucas", "Brunet", "Gaillard", "Barbier", "Arnaud", "Martinez"},
	langEN: {"Smith", "Johnson", "Williams", "Brown", "Jones", "Miller", "Davis", "Wilson", "Taylor", "Clark",
		"Walker", "Hall", "Allen", "Young", "King", "Wright", "Scott", "Green", "Baker", "Adams"},
	langDE: {"Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Meyer", "Wagner", "Becker", "Schulz", "Hoffmann",
		"Koch", "Richter", "Bauer", "Klein", "Wolf", "Schröder", "Neumann", "Schwarz", "Zimmermann", "Braun"},
	langES: {"García", "Fernández", "González", "Rodríguez", "López", "Martínez", "Sánchez", "Pérez", "Gómez", "Martín",
		"Jiménez", "Ruiz", "Hernández", "Díaz", "Moreno", "Álvarez", "Romero", "Navarro", "Torres", "Domínguez"},
	langIT: {"Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo", "Ricci", "Marino", "Greco",
		"Bruno", "Gallo", "Conti", "De Luca", "Mancini", "Costa", "Giordano", "Rizzo", "Lombardi", "Moretti"},
}

var firstNames = [...][]string{
	langFR: {"Jean", "Marie", "Pierre", "Sophie", "Nicolas", "Camille", "Julien", "Claire", "Thomas", "Julie",
		"Antoine", "Léa", "Lucas", "Emma", "Hugo", "Chloé", "Louis", "Manon", "Paul", "Sarah",
		"Philippe", "Isabelle", "Laurent", "Nathalie", "Olivier", "Céline", "Mathieu", "Aurélie", "Vincent", "Élodie"},
	langEN: {"James", "Mary", "John", "Linda", "Michael", "Sarah", "David", "Emily", "Daniel", "Laura"},
	langDE: {"Thomas", "Anna", "Michael", "Julia", "Andreas", "Katrin", "Stefan", "Sabine", "Jan", "Lena"},
	langES: {"José", "María", "Antonio", "Carmen", "Manuel", "Lucía", "Javier", "Elena", "David", "Laura"},
	langIT: {"Marco", "Giulia", "Luca", "Francesca", "Andrea", "Chiara", "Matteo", "Sara", "Giuseppe", "Anna"},
}

// lieux complete "{D} {L}": a French landmark with its article.
var lieux = [...][]string{
	langFR: {"du Marché", "de la Gare", "de la Place", "du Centre", "des Halles", "du Port", "de l'Église", "de la Mairie",
		"du Château", "des Arts", "du Parc", "de la Poste", "du Pont", "des Lilas", "du Moulin", "de la Fontaine"},
	langEN: {"Central", "Corner", "on Main", "Express", "Plus", "& Co"},
	langDE: {"am Markt", "am Bahnhof", "Zentrum", "am Park", "am Rathaus"},
	langES: {"del Centro", "de la Plaza", "del Mercado", "del Puerto"},
	langIT: {"del Centro", "della Piazza", "del Mercato", "del Porto"},
}

var adjectives = [...][]string{
	langFR: {"Doré", "Royal", "Gourmand", "Moderne", "Authentique", "Central", "Tradition", "Saint-Jacques", "Bellevue", "Victoria"},
	langEN: {"Royal", "Modern", "Classic", "Golden", "Urban", "City"},
	langDE: {"Royal", "Modern", "Klassik", "Gold", "City"},
	langES: {"Real", "Moderno", "Dorado", "Clásico"},
	langIT: {"Reale", "Moderno", "d'Oro", "Classico"},
}

// streets of a French address, without the number.
var streets = [...][]string{
	langFR: {"rue de la République", "avenue Jean Jaurès", "place de l'Église", "rue Victor Hugo", "boulevard Gambetta",
		"rue du Général de Gaulle", "rue Pasteur", "rue de la Gare", "Grande Rue", "rue des Écoles", "rue Nationale",
		"avenue de la Libération", "rue du Moulin", "chemin des Vignes", "rue Jules Ferry", "avenue Foch",
		"rue de la Paix", "place du Marché", "rue Carnot", "rue du Commerce", "quai des Marins", "rue des Tilleuls",
		"rue Émile Zola", "boulevard Voltaire", "rue Saint-Martin", "avenue des Champs", "rue de Verdun", "rue Lamartine"},
	langEN: {"Main Street", "High Street", "Church Street", "Park Avenue", "Station Road", "Market Street", "Oak Lane", "Mill Road"},
	langDE: {"Hauptstraße", "Bahnhofstraße", "Schulstraße", "Gartenstraße", "Dorfstraße", "Kirchstraße", "Lindenstraße", "Marktplatz"},
	langES: {"Calle Mayor", "Calle Real", "Avenida de la Constitución", "Calle del Sol", "Plaza de España", "Calle Nueva"},
	langIT: {"Via Roma", "Via Garibaldi", "Corso Italia", "Via Dante", "Piazza del Popolo", "Via Mazzini"},
}

// usStreets are the streets of a US address, abbreviated as the USPS
// writes them.
var usStreets = []string{"Main St", "Oak Ave", "Maple St", "Park Ave", "Elm St", "Washington Ave", "2nd St", "Lake Rd", "Broadway", "Pine St"}
