// The demo tenant: a small clothing catalog in three languages with a three-level category tree,
// attribute sets, ~20 products, ~50 variants, store locations and layouts. Written through the
// store's own create path, so every demo record obeys the same rules as an API write.
import { simpleLayout } from '../catalog/layouts.js';
import { type Author, type CatalogStore, SYSTEM } from '../catalog/store.js';

type Texts = [en: string, fr: string, es: string];
const ml = ([en, fr, es]: Texts) => ({ en, fr, es });

const CATEGORIES: Array<{ ref: string; parent?: string; title: Texts; image?: string }> = [
  { ref: 'CAT-CLOTHING', title: ['Clothing', 'Vêtements', 'Ropa'], image: 'category-clothing.jpg' },
  { ref: 'CAT-TOPS', parent: 'CAT-CLOTHING', title: ['Tops', 'Hauts', 'Partes de arriba'] },
  { ref: 'CAT-SHIRTS', parent: 'CAT-TOPS', title: ['Shirts', 'Chemises', 'Camisas'] },
  { ref: 'CAT-KNITWEAR', parent: 'CAT-TOPS', title: ['Knitwear', 'Maille', 'Punto'] },
  { ref: 'CAT-BOTTOMS', parent: 'CAT-CLOTHING', title: ['Trousers', 'Pantalons', 'Pantalones'] },
  { ref: 'CAT-OUTERWEAR', parent: 'CAT-CLOTHING', title: ['Outerwear', 'Manteaux', 'Abrigos'] },
  { ref: 'CAT-DRESSES', parent: 'CAT-CLOTHING', title: ['Dresses', 'Robes', 'Vestidos'] },
  {
    ref: 'CAT-ACCESSORIES',
    title: ['Accessories', 'Accessoires', 'Accesorios'],
    image: 'category-accessories.jpg',
  },
  { ref: 'CAT-BAGS', parent: 'CAT-ACCESSORIES', title: ['Bags', 'Sacs', 'Bolsos'] },
  {
    ref: 'CAT-SMALL-ACC',
    parent: 'CAT-ACCESSORIES',
    title: ['Small accessories', 'Petits accessoires', 'Pequeños accesorios'],
  },
  { ref: 'CAT-BELTS', parent: 'CAT-SMALL-ACC', title: ['Belts', 'Ceintures', 'Cinturones'] },
  { ref: 'CAT-SHOES', title: ['Shoes', 'Chaussures', 'Zapatos'], image: 'category-shoes.jpg' },
  { ref: 'CAT-SNEAKERS', parent: 'CAT-SHOES', title: ['Sneakers', 'Baskets', 'Zapatillas'] },
  { ref: 'CAT-BOOTS', parent: 'CAT-SHOES', title: ['Boots', 'Bottes', 'Botas'] },
];

interface DemoProduct {
  ref: string;
  title: Texts;
  description: Texts;
  brand: string;
  cats: string[];
  set: 'Apparel' | 'Footwear' | null;
  images: string[];
  imagesFr?: string[];
  weight: number;
  season?: string;
  labels?: string[];
  tags: string[];
  manual?: string;
  variants: Array<
    [suffix: string, color: [string, string], size: string, price: number, stock: number, stat?: string]
  >;
}

const WHITE: [string, string] = ['White', 'Blanc'];
const BLUE: [string, string] = ['Blue', 'Bleu'];
const BLACK: [string, string] = ['Black', 'Noir'];
const GREEN: [string, string] = ['Green', 'Vert'];
const BROWN: [string, string] = ['Brown', 'Marron'];

const PRODUCTS: DemoProduct[] = [
  {
    ref: 'LINEN-SHIRT',
    title: ['Linen shirt', 'Chemise en lin', 'Camisa de lino'],
    description: [
      'A light shirt in washed linen.',
      'Une chemise légère en lin lavé.',
      'Una camisa ligera de lino lavado.',
    ],
    brand: 'Atelier Nord',
    cats: ['CAT-SHIRTS'],
    set: 'Apparel',
    images: ['linen-shirt-front.jpg', 'linen-shirt-back.jpg'],
    imagesFr: ['linen-shirt-fr.jpg'],
    weight: 0.25,
    season: 'summer',
    labels: ['organic'],
    tags: ['linen', 'summer'],
    manual: 'care-guide.pdf',
    variants: [
      ['WHT-S', WHITE, 'S', 59, 12],
      ['WHT-M', WHITE, 'M', 59, 20],
      ['BLU-M', BLUE, 'M', 59, 0, 'inactive'],
    ],
  },
  {
    ref: 'OXFORD-SHIRT',
    title: ['Oxford shirt', 'Chemise Oxford', 'Camisa Oxford'],
    description: [
      'A button-down shirt in Oxford cotton.',
      'Une chemise à col boutonné en coton Oxford.',
      'Una camisa de cuello abotonado de algodón Oxford.',
    ],
    brand: 'Atelier Nord',
    cats: ['CAT-SHIRTS'],
    set: 'Apparel',
    images: ['linen-shirt-back.jpg'],
    weight: 0.3,
    season: 'autumn',
    tags: ['cotton', 'classic'],
    variants: [
      ['WHT-M', WHITE, 'M', 65, 8],
      ['WHT-L', WHITE, 'L', 65, 6],
      ['BLU-L', BLUE, 'L', 65, 5],
    ],
  },
  {
    ref: 'COTTON-TEE',
    title: ['Cotton T-shirt', 'T-shirt en coton', 'Camiseta de algodón'],
    description: [
      'A soft T-shirt in organic cotton.',
      'Un t-shirt doux en coton bio.',
      'Una camiseta suave de algodón orgánico.',
    ],
    brand: 'Basics & Co',
    cats: ['CAT-TOPS'],
    set: 'Apparel',
    images: ['cotton-tee-front.jpg'],
    weight: 0.18,
    season: 'summer',
    labels: ['organic', 'fair-trade'],
    tags: ['cotton', 'basic'],
    variants: [
      ['WHT-S', WHITE, 'S', 19, 40],
      ['WHT-M', WHITE, 'M', 19, 55],
      ['BLK-M', BLACK, 'M', 19, 32],
      ['BLK-L', BLACK, 'L', 19, 0, 'discontinued'],
    ],
  },
  {
    ref: 'WOOL-SWEATER',
    title: ['Wool sweater', 'Pull en laine', 'Jersey de lana'],
    description: [
      'A warm crew-neck in merino wool.',
      'Un pull col rond chaud en mérinos.',
      'Un jersey cálido de cuello redondo de merino.',
    ],
    brand: 'Atelier Nord',
    cats: ['CAT-KNITWEAR'],
    set: 'Apparel',
    images: ['wool-sweater-front.jpg'],
    weight: 0.45,
    season: 'winter',
    tags: ['wool', 'winter'],
    manual: 'care-guide.pdf',
    variants: [
      ['GRN-M', GREEN, 'M', 89, 6],
      ['BLK-M', BLACK, 'M', 89, 9],
    ],
  },
  {
    ref: 'CARDIGAN',
    title: ['Cardigan', 'Gilet', 'Cárdigan'],
    description: [
      'A buttoned cardigan in cotton knit.',
      'Un gilet boutonné en maille de coton.',
      'Un cárdigan abotonado de punto de algodón.',
    ],
    brand: 'Basics & Co',
    cats: ['CAT-KNITWEAR'],
    set: 'Apparel',
    images: [],
    weight: 0.4,
    season: 'autumn',
    tags: ['knit'],
    variants: [
      ['BLK-S', BLACK, 'S', 69, 4],
      ['BLK-M', BLACK, 'M', 69, 6],
      ['GRN-M', GREEN, 'M', 69, 3],
    ],
  },
  {
    ref: 'CHINO-TROUSERS',
    title: ['Chino trousers', 'Pantalon chino', 'Pantalón chino'],
    description: [
      'Straight-leg chinos in stretch twill.',
      'Un chino droit en twill stretch.',
      'Un chino recto de sarga elástica.',
    ],
    brand: 'Basics & Co',
    cats: ['CAT-BOTTOMS'],
    set: 'Apparel',
    images: ['chino-trousers-front.jpg'],
    weight: 0.5,
    tags: ['cotton'],
    variants: [
      ['BLU-32', BLUE, '32', 55, 10],
      ['BLK-32', BLACK, '32', 55, 11],
      ['BLK-34', BLACK, '34', 55, 7],
    ],
  },
  {
    ref: 'DENIM-JEANS',
    title: ['Denim jeans', 'Jean en denim', 'Vaqueros'],
    description: [
      'Slim jeans in rigid denim.',
      'Un jean slim en denim brut.',
      'Vaqueros slim de denim rígido.',
    ],
    brand: 'Indigo Lab',
    cats: ['CAT-BOTTOMS'],
    set: 'Apparel',
    images: ['denim-jacket-detail.jpg'],
    weight: 0.7,
    labels: ['recycled'],
    tags: ['denim'],
    variants: [
      ['BLU-30', BLUE, '30', 79, 14],
      ['BLU-32', BLUE, '32', 79, 18],
    ],
  },
  {
    ref: 'DENIM-JACKET',
    title: ['Denim jacket', 'Veste en jean', 'Chaqueta vaquera'],
    description: [
      'A classic trucker jacket.',
      'Une veste trucker classique.',
      'Una chaqueta trucker clásica.',
    ],
    brand: 'Indigo Lab',
    cats: ['CAT-OUTERWEAR'],
    set: 'Apparel',
    images: ['denim-jacket-front.jpg', 'denim-jacket-detail.jpg'],
    weight: 0.9,
    season: 'spring',
    labels: ['recycled'],
    tags: ['denim', 'jacket'],
    variants: [
      ['BLU-M', BLUE, 'M', 119, 5],
      ['BLU-L', BLUE, 'L', 119, 3],
    ],
  },
  {
    ref: 'RAIN-COAT',
    title: ['Rain coat', 'Imperméable', 'Impermeable'],
    description: [
      'A hooded coat that keeps the rain out.',
      'Un manteau à capuche qui protège de la pluie.',
      'Un abrigo con capucha que protege de la lluvia.',
    ],
    brand: 'Atelier Nord',
    cats: ['CAT-OUTERWEAR'],
    set: 'Apparel',
    images: ['rain-coat-front.jpg'],
    weight: 1.1,
    season: 'autumn',
    tags: ['rain', 'coat'],
    manual: 'care-guide.pdf',
    variants: [
      ['GRN-M', GREEN, 'M', 149, 4],
      ['BLK-M', BLACK, 'M', 149, 6],
      ['BLK-L', BLACK, 'L', 149, 2],
    ],
  },
  {
    ref: 'SUMMER-DRESS',
    title: ['Summer dress', "Robe d'été", 'Vestido de verano'],
    description: [
      'A flowing dress in printed viscose.',
      'Une robe fluide en viscose imprimée.',
      'Un vestido fluido de viscosa estampada.',
    ],
    brand: 'Soleil',
    cats: ['CAT-DRESSES'],
    set: 'Apparel',
    images: ['summer-dress-front.jpg'],
    weight: 0.3,
    season: 'summer',
    tags: ['dress', 'summer'],
    variants: [
      ['BLU-S', BLUE, 'S', 75, 9],
      ['BLU-M', BLUE, 'M', 75, 12],
      ['BLU-L', BLUE, 'L', 75, 7],
    ],
  },
  {
    ref: 'LEATHER-BELT',
    title: ['Leather belt', 'Ceinture en cuir', 'Cinturón de cuero'],
    description: [
      'A full-grain leather belt.',
      'Une ceinture en cuir pleine fleur.',
      'Un cinturón de cuero plena flor.',
    ],
    brand: 'Sellier',
    cats: ['CAT-BELTS'],
    set: null,
    images: ['leather-belt.jpg'],
    weight: 0.2,
    tags: ['leather'],
    variants: [
      ['BRN-90', BROWN, '90', 45, 15],
      ['BLK-95', BLACK, '95', 45, 10],
    ],
  },
  {
    ref: 'CANVAS-TOTE',
    title: ['Canvas tote', 'Cabas en toile', 'Bolso de lona'],
    description: [
      'A sturdy tote for every day.',
      'Un cabas solide pour tous les jours.',
      'Un bolso resistente para cada día.',
    ],
    brand: 'Sellier',
    cats: ['CAT-BAGS'],
    set: null,
    images: ['canvas-tote.jpg'],
    weight: 0.35,
    labels: ['organic'],
    tags: ['bag', 'canvas'],
    variants: [
      ['NAT-U', WHITE, 'U', 29, 30],
      ['BLK-U', BLACK, 'U', 29, 12],
    ],
  },
  {
    ref: 'LEATHER-BACKPACK',
    title: ['Leather backpack', 'Sac à dos en cuir', 'Mochila de cuero'],
    description: [
      'A backpack with a padded laptop pocket.',
      'Un sac à dos avec poche ordinateur rembourrée.',
      'Una mochila con bolsillo acolchado para portátil.',
    ],
    brand: 'Sellier',
    cats: ['CAT-BAGS'],
    set: null,
    images: [],
    weight: 1.2,
    tags: ['bag', 'leather'],
    variants: [
      ['BRN-U', BROWN, 'U', 189, 3],
      ['BLK-U', BLACK, 'U', 189, 2],
    ],
  },
  {
    ref: 'WOOL-SCARF',
    title: ['Wool scarf', 'Écharpe en laine', 'Bufanda de lana'],
    description: [
      'A long scarf in lambswool.',
      "Une longue écharpe en laine d'agneau.",
      'Una bufanda larga de lana de cordero.',
    ],
    brand: 'Atelier Nord',
    cats: ['CAT-SMALL-ACC'],
    set: null,
    images: ['wool-scarf.jpg'],
    weight: 0.15,
    season: 'winter',
    tags: ['wool', 'winter'],
    variants: [
      ['GRN-U', GREEN, 'U', 39, 20],
      ['BLK-U', BLACK, 'U', 39, 25],
      ['BLU-U', BLUE, 'U', 39, 14],
    ],
  },
  {
    ref: 'SUN-HAT',
    title: ['Sun hat', 'Chapeau de soleil', 'Sombrero de sol'],
    description: [
      'A wide-brimmed straw hat.',
      'Un chapeau de paille à large bord.',
      'Un sombrero de paja de ala ancha.',
    ],
    brand: 'Soleil',
    cats: ['CAT-SMALL-ACC'],
    set: null,
    images: ['sun-hat.jpg'],
    weight: 0.1,
    season: 'summer',
    tags: ['hat', 'summer'],
    variants: [['NAT-U', WHITE, 'U', 35, 18]],
  },
  {
    ref: 'RUNNING-SHOE',
    title: ['Running shoe', 'Chaussure de course', 'Zapatilla de running'],
    description: [
      'A light shoe with a cushioned sole.',
      'Une chaussure légère à semelle amortie.',
      'Una zapatilla ligera con suela amortiguada.',
    ],
    brand: 'Stride',
    cats: ['CAT-SNEAKERS'],
    set: 'Footwear',
    images: ['running-shoe-side.jpg'],
    weight: 0.6,
    labels: ['vegan'],
    tags: ['running', 'sport'],
    manual: 'shoe-care.pdf',
    variants: [
      ['WHT-41', WHITE, '41', 99, 7],
      ['WHT-42', WHITE, '42', 99, 9],
      ['BLK-42', BLACK, '42', 99, 11],
      ['BLK-43', BLACK, '43', 99, 4],
    ],
  },
  {
    ref: 'CANVAS-SNEAKER',
    title: ['Canvas sneaker', 'Basket en toile', 'Zapatilla de lona'],
    description: [
      'A low-top sneaker in canvas.',
      'Une basket basse en toile.',
      'Una zapatilla baja de lona.',
    ],
    brand: 'Stride',
    cats: ['CAT-SNEAKERS'],
    set: 'Footwear',
    images: [],
    weight: 0.7,
    labels: ['vegan', 'recycled'],
    tags: ['sneaker'],
    variants: [
      ['WHT-40', WHITE, '40', 59, 10],
      ['WHT-41', WHITE, '41', 59, 12],
    ],
  },
  {
    ref: 'LEATHER-BOOT',
    title: ['Leather boot', 'Bottine en cuir', 'Bota de cuero'],
    description: [
      'An ankle boot with a Goodyear welt.',
      'Une bottine cousue Goodyear.',
      'Una botina con cosido Goodyear.',
    ],
    brand: 'Sellier',
    cats: ['CAT-BOOTS'],
    set: 'Footwear',
    images: ['leather-boot-side.jpg'],
    weight: 1.4,
    season: 'winter',
    tags: ['leather', 'boot'],
    manual: 'shoe-care.pdf',
    variants: [
      ['BRN-42', BROWN, '42', 229, 3],
      ['BRN-43', BROWN, '43', 229, 2],
      ['BLK-43', BLACK, '43', 229, 0, 'inactive'],
    ],
  },
  {
    ref: 'RAIN-BOOT',
    title: ['Rain boot', 'Botte de pluie', 'Bota de agua'],
    description: [
      'A natural rubber boot.',
      'Une botte en caoutchouc naturel.',
      'Una bota de caucho natural.',
    ],
    brand: 'Stride',
    cats: ['CAT-BOOTS'],
    set: 'Footwear',
    images: [],
    weight: 1.3,
    season: 'autumn',
    tags: ['rain', 'boot'],
    variants: [
      ['GRN-40', GREEN, '40', 49, 8],
      ['GRN-42', GREEN, '42', 49, 6],
    ],
  },
  {
    ref: 'GIFT-CARD',
    title: ['Gift card', 'Carte cadeau', 'Tarjeta regalo'],
    description: [
      'A gift card for the whole shop.',
      'Une carte cadeau valable dans toute la boutique.',
      'Una tarjeta regalo para toda la tienda.',
    ],
    brand: 'Catalog Demo',
    cats: [],
    set: null,
    images: [],
    weight: 0,
    tags: [],
    variants: [],
  },
];

const STORES: Array<{
  ref: string;
  name: Texts;
  city: string;
  opening: string;
  active: boolean;
  photo?: string;
}> = [
  {
    ref: 'STORE-PARIS',
    name: ['Paris Marais', 'Paris Marais', 'París Marais'],
    city: 'Paris',
    opening: '2019-04-12T09:00:00Z',
    active: true,
    photo: 'store-paris.jpg',
  },
  {
    ref: 'STORE-LYON',
    name: ['Lyon Presqu’île', 'Lyon Presqu’île', 'Lyon Presqu’île'],
    city: 'Lyon',
    opening: '2021-09-01T09:00:00Z',
    active: true,
    photo: 'store-lyon.jpg',
  },
  {
    ref: 'STORE-MADRID',
    name: ['Madrid Centre', 'Madrid Centre', 'Madrid Centro'],
    city: 'Madrid',
    opening: '2022-03-15T10:00:00Z',
    active: true,
    photo: 'store-madrid.jpg',
  },
  {
    ref: 'STORE-BORDEAUX',
    name: ['Bordeaux (closed)', 'Bordeaux (fermé)', 'Burdeos (cerrado)'],
    city: 'Bordeaux',
    opening: '2018-06-01T09:00:00Z',
    active: false,
  },
];

/** EAN-13 with a valid check digit, from a running number. */
function ean(n: number): string {
  const body = `376000${String(n).padStart(6, '0')}`;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(body[i]) * (i % 2 === 0 ? 1 : 3);
  return body + String((10 - (sum % 10)) % 10);
}

function must(result: ReturnType<CatalogStore['create']>, what: string): number {
  if (!result.ok) throw new Error(`demo seed: ${what} was refused: ${JSON.stringify(result.failure)}`);
  return result.id;
}

export function seedDemo(store: CatalogStore, author: Author = SYSTEM): void {
  const p = store.products.def.fields.map((f) => f.name);
  const v = store.variants.def.fields.map((f) => f.name);
  const defaultSet = store.createAttributeSet(
    'Default',
    simpleLayout('Product', p),
    simpleLayout('Variant', v),
    true,
  );
  const sets = {
    Apparel: store.createAttributeSet(
      'Apparel',
      {
        sections: [
          {
            title: 'General',
            rows: [{ fields: ['prod_ref', 'prod_title'] }, { fields: ['prod_description'] }],
          },
          {
            title: 'Apparel',
            rows: [{ fields: ['prod_season', 'prod_labels'] }, { fields: ['prod_images'] }],
          },
        ],
      },
      {
        sections: [
          {
            title: 'Variant',
            rows: [
              { fields: ['frmt_ref', 'frmt_stat'] },
              { fields: ['frmt_color', 'frmt_size'] },
              { fields: ['frmt_price', 'frmt_stock', 'frmt_ean'] },
            ],
          },
        ],
      },
    ),
    Footwear: store.createAttributeSet(
      'Footwear',
      {
        sections: [
          { title: 'General', rows: [{ fields: ['prod_ref', 'prod_title'] }, { fields: ['prod_manual'] }] },
        ],
      },
      { sections: [{ title: 'Sizes', rows: [{ fields: ['frmt_ref', 'frmt_size'] }] }] },
    ),
  };
  // A set kept for older products: archived, still listed (the legacy `typ_stat`).
  const archived = store.createAttributeSet('Legacy imports', { sections: [] }, { sections: [] });
  store.attributeSets.replace({ ...store.attributeSets.get(archived)!, typ_stat: 'archived' });
  void defaultSet;

  const catIds = new Map<string, number>();
  for (const c of CATEGORIES) {
    const body: Record<string, unknown> = { cat_ref: c.ref, cat_title: ml(c.title) };
    if (c.parent) body.cat_parent_id = catIds.get(c.parent)!;
    if (c.image) body.cat_image = c.image;
    catIds.set(c.ref, must(store.create(store.categories, body, 'en', author), c.ref));
  }

  let eanNo = 1;
  PRODUCTS.forEach((d, i) => {
    const day = String(1 + (i % 28)).padStart(2, '0');
    const body: Record<string, unknown> = {
      prod_ref: d.ref,
      prod_title: ml(d.title),
      prod_description: ml(d.description),
      prod_tags: d.tags,
      prod_date: `2024-03-${day}T08:00:00Z`,
      typ_id: d.set ? sets[d.set] : null,
      cat_ids: d.cats.map((c) => catIds.get(c)!),
      prod_brand: d.brand,
      prod_weight: d.weight,
      prod_pack_size: 1,
      prod_is_new: i % 3 === 0,
      prod_labels: d.labels ?? [],
      prod_release_date: `2024-02-${day}`,
      prod_launch_at: `2024-04-${day}T07:30:00Z`,
    };
    if (d.images.length) body.prod_images = d.imagesFr ? { en: d.images, fr: d.imagesFr } : d.images;
    if (d.season) body.prod_season = d.season;
    if (d.manual) body.prod_manual = d.manual;
    const prodId = must(store.create(store.products, body, 'en', author), d.ref);
    for (const [suffix, color, size, price, stock, stat] of d.variants) {
      const swatch = `swatch-${color[0].toLowerCase()}.png`;
      const variant: Record<string, unknown> = {
        frmt_ref: `${d.ref}-${suffix}`,
        prod_id: prodId,
        frmt_stat: stat ?? 'active',
        frmt_price: price,
        frmt_stock: stock,
        frmt_ean: ean(eanNo++),
        frmt_color: { en: color[0], fr: color[1] },
        frmt_size: size,
      };
      if (['white', 'blue', 'black', 'green'].includes(color[0].toLowerCase())) variant.frmt_image = swatch;
      must(store.create(store.variants, variant, 'en', author), `${d.ref}-${suffix}`);
    }
  });

  const stores = store.custom.get('Store Locations')!;
  for (const s of STORES) {
    const body: Record<string, unknown> = {
      ce_ref: s.ref,
      ce_name: ml(s.name),
      ce_city: s.city,
      ce_opening: s.opening,
      ce_active: s.active,
    };
    if (s.photo) body.ce_photo = s.photo;
    must(store.create(stores, body, 'en', author), s.ref);
  }
  const suppliers = store.custom.get('Suppliers')!;
  must(
    store.create(
      suppliers,
      { ce_ref: 'SUP-TEXTILE', ce_name: 'Textile Mills Ltd', ce_country: 'PT' },
      'en',
      author,
    ),
    'SUP-TEXTILE',
  );

  store.categoryLayout = {
    sections: [
      { title: 'General', rows: [{ fields: ['cat_ref', 'cat_title'] }, { fields: ['cat_parent_id'] }] },
      { title: 'Media', rows: [{ fields: ['cat_image'], width: 'full' }] },
    ],
  };
  store.customLayouts.set('Store Locations', {
    sections: [
      {
        title: 'Store',
        rows: [{ fields: ['ce_ref', 'ce_name'] }, { fields: ['ce_city', 'ce_opening', 'ce_active'] }],
      },
      { title: 'Photo', rows: [{ fields: ['ce_photo'] }] },
    ],
  });
}

/** The empty tenant: the same schema, the default attribute set and layouts, no records. */
export function seedEmpty(store: CatalogStore): void {
  const p = store.products.def.fields.map((f) => f.name);
  const v = store.variants.def.fields.map((f) => f.name);
  store.createAttributeSet('Default', simpleLayout('Product', p), simpleLayout('Variant', v), true);
  store.categoryLayout = simpleLayout(
    'Category',
    store.categories.def.fields.map((f) => f.name),
  );
  const stores = store.custom.get('Store Locations')!;
  store.customLayouts.set(
    'Store Locations',
    simpleLayout(
      'Store',
      stores.def.fields.map((f) => f.name),
    ),
  );
}
