// Writes samples/catalog.xlsx: a workbook with two sheets (Products, Categories) in API field names, to
// validate with `--sheet Products --entity products` and `--sheet Categories --entity categories`.
// Run with: npx tsx samples/make-xlsx.ts
import { fileURLToPath } from 'node:url';
import ExcelJS from 'exceljs';

const ASSETS = 'http://127.0.0.1:4010/assets';

export async function makeSampleWorkbook(path: string): Promise<void> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = 'catalog-io samples';
  workbook.created = new Date('2025-01-01T00:00:00Z');
  workbook.modified = workbook.created;
  const products = workbook.addWorksheet('Products');
  products.addRow(['prod_ref', 'prod_title', 'prod_title_fr', 'prod_brand', 'prod_weight', 'prod_pack_size', 'prod_is_new', 'prod_release_date', 'cat_refs', 'prod_images']);
  products.addRow(['SMP-XL-CANDLE', 'Soy candle', 'Bougie de soja', 'Atelier Nord', 0.3, 1, true, '2025-05-01', 'SMP-HOME', `${ASSETS}/smp-candle.jpg`]);
  products.addRow(['SMP-XL-NAPKINS', 'Linen napkins', 'Serviettes en lin', 'Atelier Nord', 0.2, 4, false, '2025-06-15', 'SMP-TEXTILES|SMP-TABLEWARE', '']);
  products.addRow(['SMP-XL-BOARD', 'Oak cutting board', 'Planche en chêne', 'Field & Co', 1.1, 1, 'yes', '2025-07-01', 'SMP-KITCHEN', `${ASSETS}/smp-board.png`]);
  const categories = workbook.addWorksheet('Categories');
  categories.addRow(['cat_ref', 'cat_parent_ref', 'cat_title', 'cat_title_fr', 'cat_title_es']);
  categories.addRow(['SMP-XL-GARDEN', '', 'Garden', 'Jardin', 'Jardín']);
  categories.addRow(['SMP-XL-PLANTERS', 'SMP-XL-GARDEN', 'Planters', 'Jardinières', 'Maceteros']);
  await workbook.xlsx.writeFile(path);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await makeSampleWorkbook(fileURLToPath(new URL('./catalog.xlsx', import.meta.url)));
}
