// What feeds call a field, in English, German, French, Spanish and Italian. Keys are concepts: a field's
// name without its entity prefix (`prod_title` -> `title`, `frmt_ean` -> `ean`) or a link column's
// concept (`categories` for `cat_refs`, `parent` for `cat_parent_ref`, `product` for a variant's
// `prod_ref`). Words are compared after `normalise` (lower case, no accents, no spaces or punctuation).

// biome-ignore format: a table reads best a few words a line
const WORDS: Record<string, string[]> = {
  ref: [
    'sku', 'ref', 'reference', 'code', 'item number', 'item no', 'article number', 'product code',
    'part number', 'style number', 'artikelnummer', 'artikel nr', 'art nr', 'artnr', 'artikelnr',
    'bestellnummer', 'referenz', 'artikelcode', 'reference produit', 'code article', 'code produit',
    'ref produit', 'numero d article', 'referencia', 'codigo', 'codigo de articulo', 'codigo de producto',
    'numero de articulo', 'riferimento', 'codice', 'codice articolo', 'codice prodotto', 'cod articolo',
  ],
  title: [
    'name', 'title', 'product name', 'product title', 'label', 'item name', 'bezeichnung',
    'artikelbezeichnung', 'produktname', 'produktbezeichnung', 'titel', 'artikelname', 'nom', 'titre',
    'designation', 'libelle', 'nom du produit', 'intitule', 'nombre', 'titulo', 'nombre del producto',
    'denominacion', 'nome', 'titolo', 'denominazione', 'nome prodotto',
  ],
  description: [
    'product description', 'full description', 'description long',
    'description', 'long description', 'details', 'body', 'body html', 'text', 'beschreibung',
    'langbeschreibung', 'produktbeschreibung', 'artikelbeschreibung', 'langtext', 'description longue',
    'descriptif', 'descripcion', 'descripcion larga', 'descrizione', 'descrizione lunga',
  ],
  price: [
    'price tax excluded', 'price tax excl', 'price excl tax', 'gross price', 'price gross',
    'price', 'regular price', 'unit price', 'list price', 'retail price', 'sales price', 'rrp', 'msrp',
    'preis', 'verkaufspreis', 'vk', 'vk preis', 'listenpreis', 'uvp', 'einzelpreis', 'bruttopreis', 'prix',
    'prix de vente', 'prix unitaire', 'tarif', 'prix public', 'precio', 'precio de venta', 'precio unitario',
    'pvp', 'prezzo', 'prezzo di vendita', 'prezzo unitario', 'prezzo di listino',
  ],
  weight: [
    'package weight', 'shipping weight',
    'weight', 'net weight', 'gross weight', 'shipping weight', 'gewicht', 'nettogewicht', 'bruttogewicht',
    'versandgewicht', 'poids', 'poids net', 'poids brut', 'peso', 'peso neto', 'peso bruto', 'peso netto',
    'peso lordo',
  ],
  ean: [
    'ean', 'code', 'ean13', 'ean 13', 'gtin', 'gtin13', 'barcode', 'ean code', 'bar code', 'strichcode',
    'ean nummer', 'gtin nummer', 'code barre', 'code barres', 'code ean', 'codigo de barras', 'codigo ean',
    'codice a barre', 'codice ean',
  ],
  images: [
    'thumbnail', 'image file name', 'picture file name', 'image file', 'picture file',
    'image', 'images', 'image url', 'image urls', 'image link', 'picture', 'pictures', 'photo', 'photos',
    'main image', 'product image', 'img', 'bild', 'bilder', 'bild url', 'bildlink', 'bild link',
    'produktbild', 'foto', 'fotos', 'abbildung', 'image principale', 'url image', 'lien image', 'imagen',
    'imagenes', 'url de imagen', 'immagine', 'immagini', 'url immagine',
  ],
  stock: [
    'available quantity', 'available stock', 'inventory quantity',
    'stock', 'qty', 'quantity', 'inventory', 'stock on hand', 'on hand', 'available', 'stock quantity',
    'lagerbestand', 'bestand', 'menge', 'lager', 'verfugbar', 'verfugbarkeit', 'lagermenge', 'quantite',
    'stock disponible', 'inventaire', 'existencias', 'cantidad', 'inventario', 'disponible', 'giacenza',
    'quantita', 'disponibilita', 'scorta',
  ],
  brand: [
    'brands', 'manufacturer name',
    'brand', 'manufacturer', 'vendor', 'make', 'brand name', 'marke', 'hersteller', 'markenname', 'marque',
    'fabricant', 'marca', 'fabricante', 'produttore', 'fabbricante',
  ],
  color: [
    'color', 'colour', 'farbe', 'couleur', 'colore', 'farbton', 'teinte',
  ],
  size: [
    'size', 'grosse', 'konfektionsgrosse', 'taille', 'talla', 'tamano', 'taglia', 'misura',
  ],
  tags: [
    'tags', 'keywords', 'schlagworter', 'schlagworte', 'stichworter', 'mots cles', 'etiquettes', 'etiquetas',
    'palabras clave', 'parole chiave', 'etichette',
  ],
  stat: [
    'status', 'state', 'statut', 'estado', 'stato', 'artikelstatus',
  ],
  season: [
    'season', 'saison', 'temporada', 'stagione',
  ],
  labels: [
    'labels', 'certifications', 'siegel', 'gutesiegel', 'certificaciones', 'certificazioni',
  ],
  manual: [
    'manual', 'care guide', 'instructions', 'datasheet', 'anleitung', 'bedienungsanleitung', 'handbuch',
    'datenblatt', 'notice', 'manuel', 'fiche technique', 'manual de instrucciones', 'manuale',
    'scheda tecnica',
  ],
  release_date: [
    'release date', 'available from', 'erscheinungsdatum', 'verfugbar ab', 'date de sortie',
    'fecha de lanzamiento', 'data di uscita', 'data di rilascio',
  ],
  date: [
    'publication date', 'published', 'published at', 'veroffentlichungsdatum', 'veroffentlicht',
    'date de publication', 'fecha de publicacion', 'data di pubblicazione',
  ],
  launch_at: [
    'launch', 'launch date', 'launch at', 'markteinfuhrung', 'lancement', 'lanzamiento', 'lancio',
  ],
  pack_size: [
    'pack size', 'items per pack', 'pack', 'packungsgrosse', 've', 'verpackungseinheit', 'colisage',
    'unites par colis', 'unidades por paquete', 'pezzi per confezione', 'confezione',
  ],
  is_new: [
    'new arrival',
    'new', 'is new', 'neu', 'neuheit', 'nouveau', 'nouveaute', 'nuevo', 'novedad', 'nuovo', 'novita',
  ],
  categories: [
    'category', 'categories', 'collection', 'collections', 'product type', 'kategorie', 'kategorien',
    'warengruppe', 'produktgruppe', 'rubrik', 'categorie', 'categories produit', 'rayon', 'categoria',
    'categorias', 'familia', 'categorie prodotto', 'reparto',
  ],
  parent: [
    'parent code', 'parent id',
    'parent', 'parent category', 'parent ref', 'ubergeordnete kategorie', 'oberkategorie', 'elternkategorie',
    'categorie parente', 'categoria padre', 'categoria principale',
  ],
  product: [
    'product id', 'parent id',
    'parent', 'handle', 'parent sku', 'product', 'product ref', 'product sku', 'parent product',
    'stammartikel', 'hauptartikel', 'elternartikel', 'produkt', 'produit', 'produit parent', 'modele',
    'producto', 'producto padre', 'modelo', 'prodotto', 'prodotto padre', 'modello',
  ],
  name: [
    'name', 'title', 'bezeichnung', 'nom', 'nombre', 'nome', 'store', 'store name',
  ],
  active: [
    'active', 'enabled', 'aktiv', 'actif', 'activo', 'attivo',
  ],
  opening: [
    'opening', 'opening date', 'opened', 'eroffnung', 'ouverture', 'apertura',
  ],
};

/** Accents off, `ß` as `ss`, lower case, letters and digits only: `Größe (cm)` -> `grossecm`. */
export function normalise(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * Words that name a concept only when nothing better does: `id` or `slug` is the ref of a feed without a
 * SKU, `supplier` the brand of one without a manufacturer. They score below the words above.
 */
// biome-ignore format: a table reads best a few words a line
const WEAK_WORDS: Record<string, string[]> = {
  ref: ['id', 'slug'],
  images: ['assets', 'media'],
  brand: ['supplier', 'designer', 'lieferant', 'fournisseur', 'proveedor', 'fornitore'],
  stock: ['in stock', 'instock'],
  categories: ['type name', 'catalog type'],
};

/** Headers that name a row's parent: structure (the variant mapping), not a field of the product. */
export const PARENT_WORDS: ReadonlySet<string> = new Set(
  [
    'parent',
    'parent sku',
    'parent id',
    'parent ref',
    'parent product',
    'parent code',
    'parent reference',
    'elternartikel',
    'produit parent',
    'producto padre',
    'prodotto padre',
  ].map((w) => normalise(w)),
);

/** Words that say which record a header is about, not what it holds (`Product Title`, `CatalogBrandName`). */
export const ENTITY_WORDS = [
  'product',
  'item',
  'article',
  'catalog',
  'produkt',
  'artikel',
  'produit',
  'producto',
  'prodotto',
];

/** Concept -> its words, normalised. */
export const SYNONYMS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(WORDS).map(([concept, words]) => [concept, [...new Set(words.map(normalise))]]),
);

/** Concept -> its weak words, normalised. */
export const WEAK_SYNONYMS: ReadonlyMap<string, readonly string[]> = new Map(
  Object.entries(WEAK_WORDS).map(([concept, words]) => [concept, [...new Set(words.map(normalise))]]),
);

/** Words that put a header on the variant rather than the product (`Variant image`, `Variantenpreis`). */
export const VARIANT_WORDS = ['variant', 'variante', 'varianten', 'variation', 'declinaison', 'variazione'];
