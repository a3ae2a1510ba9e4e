// The DAM names the demo catalog uses. The DAM registers these at start, so every image and file
// named by a demo record exists and demo records pass the catalog's write validation.

export const DEMO_IMAGES: Array<{ reference: string; width: number; height: number }> = [
  { reference: 'linen-shirt-front.jpg', width: 1200, height: 1600 },
  { reference: 'linen-shirt-back.jpg', width: 1200, height: 1600 },
  { reference: 'linen-shirt-fr.jpg', width: 1200, height: 1600 },
  { reference: 'denim-jacket-front.jpg', width: 1200, height: 1600 },
  { reference: 'denim-jacket-detail.jpg', width: 800, height: 800 },
  { reference: 'wool-sweater-front.jpg', width: 1200, height: 1600 },
  { reference: 'cotton-tee-front.jpg', width: 1200, height: 1600 },
  { reference: 'chino-trousers-front.jpg', width: 1200, height: 1600 },
  { reference: 'summer-dress-front.jpg', width: 1200, height: 1600 },
  { reference: 'rain-coat-front.jpg', width: 1200, height: 1600 },
  { reference: 'leather-belt.jpg', width: 1000, height: 1000 },
  { reference: 'canvas-tote.jpg', width: 1000, height: 1000 },
  { reference: 'wool-scarf.jpg', width: 1000, height: 1000 },
  { reference: 'sun-hat.jpg', width: 1000, height: 1000 },
  { reference: 'running-shoe-side.jpg', width: 1400, height: 1000 },
  { reference: 'leather-boot-side.jpg', width: 1400, height: 1000 },
  { reference: 'swatch-white.png', width: 200, height: 200 },
  { reference: 'swatch-blue.png', width: 200, height: 200 },
  { reference: 'swatch-black.png', width: 200, height: 200 },
  { reference: 'swatch-green.png', width: 200, height: 200 },
  { reference: 'category-clothing.jpg', width: 1600, height: 600 },
  { reference: 'category-accessories.jpg', width: 1600, height: 600 },
  { reference: 'category-shoes.jpg', width: 1600, height: 600 },
  { reference: 'store-paris.jpg', width: 1600, height: 1067 },
  { reference: 'store-lyon.jpg', width: 1600, height: 1067 },
  { reference: 'store-madrid.jpg', width: 1600, height: 1067 },
];

export const DEMO_FILES: Array<{ reference: string }> = [
  { reference: 'care-guide.pdf' },
  { reference: 'size-chart.pdf' },
  { reference: 'shoe-care.pdf' },
];
