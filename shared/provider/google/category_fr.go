package google

// typesFR are French labels of the place types of Google's type tables
// (Places API (New), "Place types (New)": Table A, and the Table B types
// that name a trade), for places without a primaryTypeDisplayName. The
// labels are the project's, in the words a French listing uses; a type
// missing here falls back to its English label (typeLabel).
var typesFR = map[string]string{
	// Automobile
	"car_dealer": "Concessionnaire automobile", "car_rental": "Location de voitures", "car_repair": "Garage automobile",
	"car_wash": "Station de lavage", "electric_vehicle_charging_station": "Borne de recharge", "gas_station": "Station-service",
	"parking": "Parking", "rest_stop": "Aire de repos", "auto_parts_store": "Magasin de pièces auto",
	// Entreprises
	"corporate_office": "Siège social", "farm": "Ferme", "ranch": "Ranch", "general_contractor": "Entreprise générale du bâtiment",
	"point_of_interest": "Point d'intérêt", "establishment": "Établissement",
	// Culture
	"art_gallery": "Galerie d'art", "art_studio": "Atelier d'artiste", "auditorium": "Auditorium", "cultural_landmark": "Site culturel",
	"historical_place": "Lieu historique", "monument": "Monument", "museum": "Musée", "performing_arts_theater": "Théâtre",
	"sculpture": "Sculpture",
	// Enseignement
	"library": "Bibliothèque", "preschool": "École maternelle", "primary_school": "École primaire", "school": "École",
	"secondary_school": "Établissement d'enseignement secondaire", "university": "Université",
	// Loisirs
	"adventure_sports_center": "Centre de sports d'aventure", "amphitheatre": "Amphithéâtre", "amusement_center": "Salle de jeux",
	"amusement_park": "Parc d'attractions", "aquarium": "Aquarium", "banquet_hall": "Salle de réception",
	"barbecue_area": "Aire de barbecue", "botanical_garden": "Jardin botanique", "bowling_alley": "Bowling", "casino": "Casino",
	"childrens_camp": "Colonie de vacances", "comedy_club": "Café-théâtre", "community_center": "Centre socioculturel",
	"concert_hall": "Salle de concert", "convention_center": "Centre de congrès", "cultural_center": "Centre culturel",
	"cycling_park": "Parc cycliste", "dance_hall": "Salle de danse", "dog_park": "Parc canin", "event_venue": "Lieu d'événements",
	"ferris_wheel": "Grande roue", "garden": "Jardin", "hiking_area": "Zone de randonnée", "historical_landmark": "Site historique",
	"internet_cafe": "Cybercafé", "karaoke": "Karaoké", "marina": "Port de plaisance", "movie_rental": "Location de films",
	"movie_theater": "Cinéma", "national_park": "Parc national", "night_club": "Boîte de nuit", "observation_deck": "Point de vue",
	"off_roading_area": "Terrain tout-terrain", "opera_house": "Opéra", "park": "Parc", "philharmonic_hall": "Philharmonie",
	"picnic_ground": "Aire de pique-nique", "planetarium": "Planétarium", "plaza": "Place", "roller_coaster": "Montagnes russes",
	"skateboard_park": "Skatepark", "state_park": "Parc régional", "tourist_attraction": "Attraction touristique",
	"video_arcade": "Salle d'arcade", "visitor_center": "Centre d'accueil des visiteurs", "water_park": "Parc aquatique",
	"wedding_venue": "Lieu de mariage", "wildlife_park": "Parc animalier", "wildlife_refuge": "Réserve naturelle", "zoo": "Zoo",
	// Équipements
	"public_bath": "Bains publics", "public_bathroom": "Toilettes publiques", "stable": "Écurie",
	// Finance
	"accounting": "Expert-comptable", "atm": "Distributeur de billets", "bank": "Banque", "finance": "Services financiers",
	// Restauration
	"acai_shop": "Bar à açaí", "afghani_restaurant": "Restaurant afghan", "african_restaurant": "Restaurant africain",
	"american_restaurant": "Restaurant américain", "asian_restaurant": "Restaurant asiatique", "bagel_shop": "Boutique de bagels",
	"bakery": "Boulangerie", "bar": "Bar", "bar_and_grill": "Bar-grill", "barbecue_restaurant": "Restaurant de grillades",
	"brazilian_restaurant": "Restaurant brésilien", "breakfast_restaurant": "Restaurant de petit-déjeuner",
	"brunch_restaurant": "Restaurant de brunch", "buffet_restaurant": "Restaurant buffet", "cafe": "Café", "cafeteria": "Cafétéria",
	"candy_store": "Confiserie", "cat_cafe": "Bar à chats", "chinese_restaurant": "Restaurant chinois",
	"chocolate_factory": "Chocolaterie", "chocolate_shop": "Chocolatier", "coffee_shop": "Café", "confectionery": "Confiserie",
	"deli": "Épicerie fine", "dessert_restaurant": "Restaurant de desserts", "dessert_shop": "Pâtisserie", "diner": "Diner",
	"dog_cafe": "Café canin", "donut_shop": "Boutique de donuts", "fast_food_restaurant": "Restauration rapide",
	"fine_dining_restaurant": "Restaurant gastronomique", "food_court": "Aire de restauration", "french_restaurant": "Restaurant français",
	"greek_restaurant": "Restaurant grec", "hamburger_restaurant": "Restaurant de burgers", "ice_cream_shop": "Glacier",
	"indian_restaurant": "Restaurant indien", "indonesian_restaurant": "Restaurant indonésien", "italian_restaurant": "Restaurant italien",
	"japanese_restaurant": "Restaurant japonais", "juice_shop": "Bar à jus", "korean_restaurant": "Restaurant coréen",
	"lebanese_restaurant": "Restaurant libanais", "meal_delivery": "Livraison de repas", "meal_takeaway": "Vente à emporter",
	"mediterranean_restaurant": "Restaurant méditerranéen", "mexican_restaurant": "Restaurant mexicain",
	"middle_eastern_restaurant": "Restaurant oriental", "pizza_restaurant": "Pizzeria", "pub": "Pub", "ramen_restaurant": "Restaurant de ramen",
	"restaurant": "Restaurant", "sandwich_shop": "Sandwicherie", "seafood_restaurant": "Restaurant de fruits de mer",
	"spanish_restaurant": "Restaurant espagnol", "steak_house": "Grill", "sushi_restaurant": "Restaurant de sushis",
	"tea_house": "Salon de thé", "thai_restaurant": "Restaurant thaïlandais", "turkish_restaurant": "Restaurant turc",
	"vegan_restaurant": "Restaurant végan", "vegetarian_restaurant": "Restaurant végétarien",
	"vietnamese_restaurant": "Restaurant vietnamien", "wine_bar": "Bar à vin", "food": "Alimentation",
	// Administrations
	"city_hall": "Mairie", "courthouse": "Tribunal", "embassy": "Ambassade", "fire_station": "Caserne de pompiers",
	"government_office": "Administration publique", "local_government_office": "Administration locale",
	"neighborhood_police_station": "Poste de police", "police": "Police", "post_office": "Bureau de poste",
	// Santé et bien-être
	"chiropractor": "Chiropracteur", "dental_clinic": "Centre dentaire", "dentist": "Dentiste", "doctor": "Médecin",
	"drugstore": "Droguerie", "hospital": "Hôpital", "massage": "Massage", "medical_lab": "Laboratoire d'analyses médicales",
	"pharmacy": "Pharmacie", "physiotherapist": "Kinésithérapeute", "sauna": "Sauna", "skin_care_clinic": "Institut de soins de la peau",
	"spa": "Spa", "tanning_studio": "Centre de bronzage", "wellness_center": "Centre de bien-être", "yoga_studio": "Studio de yoga",
	"health": "Santé",
	// Logement
	"apartment_building": "Immeuble d'habitation", "apartment_complex": "Résidence", "condominium_complex": "Copropriété",
	"housing_complex": "Ensemble résidentiel",
	// Hébergement
	"bed_and_breakfast": "Chambre d'hôtes", "budget_japanese_inn": "Auberge japonaise", "campground": "Camping",
	"camping_cabin": "Chalet de camping", "cottage": "Gîte", "extended_stay_hotel": "Résidence hôtelière", "farmstay": "Séjour à la ferme",
	"guest_house": "Maison d'hôtes", "hostel": "Auberge de jeunesse", "hotel": "Hôtel", "inn": "Auberge", "japanese_inn": "Ryokan",
	"lodging": "Hébergement", "mobile_home_park": "Parc de mobil-homes", "motel": "Motel", "private_guest_room": "Chambre chez l'habitant",
	"resort_hotel": "Complexe hôtelier", "rv_park": "Aire de camping-cars",
	// Nature
	"beach": "Plage",
	// Lieux de culte
	"church": "Église", "hindu_temple": "Temple hindou", "mosque": "Mosquée", "synagogue": "Synagogue", "place_of_worship": "Lieu de culte",
	// Services
	"astrologer": "Astrologue", "barber_shop": "Barbier", "beautician": "Esthéticienne", "beauty_salon": "Institut de beauté",
	"body_art_service": "Tatoueur", "catering_service": "Traiteur", "cemetery": "Cimetière", "child_care_agency": "Garde d'enfants",
	"consultant": "Consultant", "courier_service": "Service de coursiers", "electrician": "Électricien", "florist": "Fleuriste",
	"food_delivery": "Livraison de repas", "foot_care": "Pédicure", "funeral_home": "Pompes funèbres", "hair_care": "Coiffeur",
	"hair_salon": "Salon de coiffure", "insurance_agency": "Agence d'assurance", "laundry": "Laverie", "lawyer": "Avocat",
	"locksmith": "Serrurier", "makeup_artist": "Maquilleur", "moving_company": "Déménageur", "nail_salon": "Onglerie",
	"painter": "Peintre en bâtiment", "plumber": "Plombier", "psychic": "Voyant", "real_estate_agency": "Agence immobilière",
	"roofing_contractor": "Couvreur", "storage": "Garde-meubles", "summer_camp_organizer": "Organisateur de colonies de vacances",
	"tailor": "Tailleur", "telecommunications_service_provider": "Opérateur télécom", "tour_agency": "Organisateur de circuits",
	"tourist_information_center": "Office de tourisme", "travel_agency": "Agence de voyages", "veterinary_care": "Vétérinaire",
	// Commerces
	"asian_grocery_store": "Épicerie asiatique", "bicycle_store": "Magasin de vélos", "book_store": "Librairie",
	"butcher_shop": "Boucherie", "cell_phone_store": "Magasin de téléphonie", "clothing_store": "Magasin de vêtements",
	"convenience_store": "Supérette", "department_store": "Grand magasin", "discount_store": "Magasin discount",
	"electronics_store": "Magasin d'électronique", "food_store": "Magasin d'alimentation", "furniture_store": "Magasin de meubles",
	"gift_shop": "Boutique de cadeaux", "grocery_store": "Épicerie", "hardware_store": "Quincaillerie",
	"home_goods_store": "Magasin d'articles de maison", "home_improvement_store": "Magasin de bricolage", "jewelry_store": "Bijouterie",
	"liquor_store": "Caviste", "market": "Marché", "pet_store": "Animalerie", "shoe_store": "Magasin de chaussures",
	"shopping_mall": "Centre commercial", "sporting_goods_store": "Magasin d'articles de sport", "store": "Magasin",
	"supermarket": "Supermarché", "warehouse_store": "Magasin-entrepôt", "wholesaler": "Grossiste",
	// Sports
	"arena": "Aréna", "athletic_field": "Terrain de sport", "fishing_charter": "Sortie de pêche en mer", "fishing_pond": "Étang de pêche",
	"fitness_center": "Salle de sport", "golf_course": "Golf", "gym": "Salle de sport", "ice_skating_rink": "Patinoire",
	"playground": "Aire de jeux", "ski_resort": "Station de ski", "sports_activity_location": "Lieu d'activités sportives",
	"sports_club": "Club de sport", "sports_coaching": "Coach sportif", "sports_complex": "Complexe sportif", "stadium": "Stade",
	"swimming_pool": "Piscine",
	// Transports
	"airport": "Aéroport", "airstrip": "Aérodrome", "bus_station": "Gare routière", "bus_stop": "Arrêt de bus",
	"ferry_terminal": "Gare maritime", "heliport": "Héliport", "international_airport": "Aéroport international",
	"light_rail_station": "Station de tramway", "park_and_ride": "Parc relais", "subway_station": "Station de métro",
	"taxi_stand": "Station de taxis", "train_station": "Gare", "transit_depot": "Dépôt de transports en commun",
	"transit_station": "Station de transports en commun", "truck_stop": "Relais routier",
}
